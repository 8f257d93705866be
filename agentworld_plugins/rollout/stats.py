"""``rollout stats``: reward per task (GRPO group), pass@k and turn counts of an episodes file,
and a bar chart of mean reward per task (PNG or SVG, drawn by the bench plot renderers).

>>> stats = episode_stats("episodes.jsonl", ks=(1, 4))                       # doctest: +SKIP
>>> stats.groups["issue-bug"].pass_at[4]                                      # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from math import comb, isfinite
from pathlib import Path
from typing import Any

from ..errors import ConfigError, short_repr
from ..files import iter_jsonl


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k of ``c`` successes among ``n`` samples (Chen et al., 2021):
    ``1 - C(n-c, k) / C(n, k)``; with fewer than ``k`` samples, whether any succeeded."""
    if n <= 0:
        return 0.0
    if k >= n:
        return 1.0 if c > 0 else 0.0
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


@dataclass
class GroupStats:
    """The episodes of one task (one GRPO group)."""

    task_id: str
    domain: str
    rewards: list[float] = field(default_factory=list)
    turns: list[int] = field(default_factory=list)
    failed: int = 0
    pass_at: dict[int, float] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.rewards)

    @property
    def mean_reward(self) -> float:
        return sum(self.rewards) / len(self.rewards) if self.rewards else 0.0

    @property
    def mean_turns(self) -> float:
        return sum(self.turns) / len(self.turns) if self.turns else 0.0


@dataclass
class EpisodeStats:
    """Every group of a file, in file order, and the totals."""

    path: Path
    groups: dict[str, GroupStats]
    ks: tuple[int, ...]
    threshold: float

    @property
    def episodes(self) -> int:
        return sum(g.n for g in self.groups.values())

    @property
    def failed(self) -> int:
        return sum(g.failed for g in self.groups.values())

    def overall(self) -> dict[str, float]:
        """Means over the groups: reward, turns and each pass@k."""
        groups = [g for g in self.groups.values() if g.n]
        if not groups:
            return {}
        out = {
            "mean_reward": sum(g.mean_reward for g in groups) / len(groups),
            "mean_turns": sum(g.mean_turns for g in groups) / len(groups),
        }
        for k in self.ks:
            out[f"pass@{k}"] = sum(g.pass_at[k] for g in groups) / len(groups)
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": str(self.path),
            "episodes": self.episodes,
            "failed": self.failed,
            "threshold": self.threshold,
            "overall": self.overall(),
            "groups": [
                {
                    "task_id": g.task_id,
                    "domain": g.domain,
                    "n": g.n,
                    "failed": g.failed,
                    "mean_reward": g.mean_reward,
                    "mean_turns": g.mean_turns,
                    **{f"pass@{k}": g.pass_at[k] for k in self.ks},
                }
                for g in self.groups.values()
            ],
        }


def _is_number(value: Any) -> bool:
    """Whether ``value`` is a finite number a float can hold (not a bool, not a 400-digit int)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        return isfinite(value)
    except OverflowError:
        return False


def episode_stats(path: str | Path, ks: Sequence[int] = (1,), threshold: float = 1.0) -> EpisodeStats:
    """Read an episodes file; an episode passes when its reward is at least ``threshold``."""
    if any(k < 1 for k in ks):
        raise ConfigError(f"pass@k needs k >= 1, got {list(ks)}", hint="pass -k 1 -k 4 ...")
    groups: dict[str, GroupStats] = {}
    for lineno, line in iter_jsonl(path, hint="an episodes file from 'agentworld rollout run'"):
        if not isinstance(line, dict) or "group_id" not in line:
            raise ConfigError(f"{path}:{lineno} is not an episode line", hint="pass a rollout run output")
        group = groups.setdefault(
            str(line["group_id"]), GroupStats(str(line.get("task_id")), str(line.get("task")))
        )
        rollout = line.get("rollout")
        if not isinstance(rollout, dict) or rollout.get("status") != "ok":
            group.failed += 1
            continue
        reward, turns = line.get("reward") or 0.0, line.get("num_turns") or 0
        if not (_is_number(reward) and _is_number(turns)):
            raise ConfigError(
                f"{path}:{lineno}: reward and num_turns must be numbers, got {short_repr(reward)} and "
                f"{short_repr(turns)}",
                hint="pass a rollout run output",
            )
        group.rewards.append(float(reward))
        group.turns.append(int(turns))
    ks = tuple(sorted(set(ks)))
    for group in groups.values():
        passed = sum(1 for r in group.rewards if r >= threshold)
        group.pass_at = {k: pass_at_k(group.n, passed, k) for k in ks}
    return EpisodeStats(Path(path), groups, ks, threshold)


def write_reward_plot(stats: EpisodeStats, path: str | Path) -> Path:
    """A bar per task: its mean reward (0-1), into ``path`` (``.png`` or ``.svg``)."""
    from ..bench.plot import CHAR_H, PALETTE, TEXT_COLOUR, Rect, Text, image_path, save_image

    path = image_path(path)
    scale, bar_h, gap = 2, 18, 6
    names = list(stats.groups) or ["(no episodes)"]
    label_w = max(len(n) for n in names) * 6 * scale + 24
    plot_w = 400
    shapes: list[Rect | Text] = [
        Text(16, 14, f"mean reward per task ({stats.path.name})", TEXT_COLOUR, scale)
    ]
    y = 14 + CHAR_H * scale + 18
    for i, (name, group) in enumerate(stats.groups.items()):
        shapes.append(Text(label_w - 12, y + 1, name, TEXT_COLOUR, scale, "end"))
        length = max(1, round(group.mean_reward * plot_w))
        shapes.append(Rect(label_w, y, length, bar_h, PALETTE[i % len(PALETTE)]))
        shapes.append(
            Text(label_w + length + 6, y + 1, f"{group.mean_reward:.2f} (n={group.n})", TEXT_COLOUR, scale)
        )
        y += bar_h + gap
    return save_image(path, label_w + plot_w + 160, y + 16, shapes)
