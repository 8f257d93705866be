"""The in-memory filesystem: paths, errors, the frozen clock, seeding and snapshots."""

from __future__ import annotations

import copy

import pytest

from agentworld_plugins.offline.vfs import EPOCH, FsError, Symlink, VirtualFS, is_binary, mode_string


@pytest.fixture
def fs() -> VirtualFS:
    return VirtualFS.default()


def test_default_tree_has_the_promised_places(fs: VirtualFS) -> None:
    for d in ("/", "/root", "/tmp", "/etc", "/home", "/usr/bin", "/app"):
        assert fs.is_dir(d), d
    assert 'VERSION_ID="24.04"' in fs.read_text("/etc/os-release")
    assert fs.read_text("/etc/hostname") == "agentworld\n"
    assert fs.listdir("/app") == ["README.md", "main.py", "requirements.txt"]
    assert "def greet" in fs.read_text("/app/main.py")
    assert fs.is_file("/usr/bin/ls") and fs.is_file("/usr/bin/python3") and fs.is_file("/usr/bin/git")
    # /bin is a link to usr/bin, as on Ubuntu
    assert fs.is_link("/bin") and fs.readlink("/bin") == "usr/bin"
    assert fs.is_file("/bin/ls") and fs.realpath("/bin/ls") == "/usr/bin/ls"
    assert mode_string(fs.stat("/tmp")) == "drwxrwxrwt"


@pytest.mark.parametrize(
    ("path", "cwd", "expected"),
    [
        ("a/b", "/app", "/app/a/b"),
        ("./a/../b", "/app", "/app/b"),
        ("../..", "/app/x", "/"),
        ("/../../etc", "/app", "/etc"),
        ("~", "/app", "/root"),
        ("~/notes.txt", "/tmp", "/root/notes.txt"),
        ("//usr///bin/", "/", "/usr/bin"),
        (".", "/tmp", "/tmp"),
    ],
)
def test_normalize(fs: VirtualFS, path: str, cwd: str, expected: str) -> None:
    assert fs.normalize(path, cwd) == expected


def test_write_read_append_and_binary(fs: VirtualFS) -> None:
    fs.write("/tmp/a.txt", "one\n")
    fs.append("/tmp/a.txt", "two\n")
    assert fs.read_text("/tmp/a.txt") == "one\ntwo\n"
    fs.write("/tmp/blob", b"\x00\x01\xffdata")
    assert fs.read("/tmp/blob") == b"\x00\x01\xffdata"
    assert is_binary(fs.read("/tmp/blob")) and is_binary(fs.read_text("/tmp/blob"))
    assert not is_binary(fs.read("/tmp/a.txt"))
    # text read back from bytes round-trips losslessly
    assert fs.read_text("/tmp/blob").encode("utf-8", "surrogateescape") == b"\x00\x01\xffdata"
    assert fs.stat("/tmp/blob").size == 7  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("operation", "code"),
    [
        (lambda fs: fs.read("/nope"), "ENOENT"),
        (lambda fs: fs.read("/app"), "EISDIR"),
        (lambda fs: fs.write("/nope/x", "x"), "ENOENT"),
        (lambda fs: fs.write("/app/main.py/x", "x"), "ENOTDIR"),
        (lambda fs: fs.write("/app", "x"), "EISDIR"),
        (lambda fs: fs.mkdir("/app"), "EEXIST"),
        (lambda fs: fs.mkdir("/app/a/b"), "ENOENT"),
        (lambda fs: fs.rmdir("/app"), "ENOTEMPTY"),
        (lambda fs: fs.rmdir("/app/main.py"), "ENOTDIR"),
        (lambda fs: fs.remove("/app"), "EISDIR"),
        (lambda fs: fs.remove("/app/nope"), "ENOENT"),
        (lambda fs: fs.listdir("/app/main.py"), "ENOTDIR"),
    ],
)
def test_errors_carry_errno_names(fs: VirtualFS, operation, code: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(FsError) as info:
        operation(fs)
    assert info.value.code == code
    assert info.value.strerror in str(info.value)


def test_mkdir_parents_rmtree_copy_move(fs: VirtualFS) -> None:
    fs.mkdir("/srv/a/b/c", parents=True)
    fs.mkdir("/srv/a/b/c", parents=True)  # no error the second time
    fs.write("/srv/a/b/c/f.txt", "x")
    fs.copy("/srv/a", "/srv/copy", recursive=True)
    assert fs.read_text("/srv/copy/b/c/f.txt") == "x"
    with pytest.raises(FsError):
        fs.copy("/srv/a", "/srv/other")  # a directory needs recursive
    fs.move("/srv/copy", "/srv/moved")
    assert not fs.exists("/srv/copy") and fs.exists("/srv/moved/b/c/f.txt")
    with pytest.raises(FsError) as info:
        fs.move("/srv/moved", "/srv/moved/b/inside")
    assert info.value.code == "EINVAL"
    fs.rmtree("/srv/a")
    assert fs.listdir("/srv") == ["moved"]
    assert [d for d, _, _ in fs.walk("/srv")] == ["/srv", "/srv/moved", "/srv/moved/b", "/srv/moved/b/c"]


def test_frozen_clock_advances_one_second_per_mutation() -> None:
    fs = VirtualFS.default()
    assert fs.now() == EPOCH
    assert fs.stat("/app/main.py").mtime == EPOCH
    fs.write("/tmp/a", "1")
    fs.write("/tmp/b", "2")
    fs.touch("/tmp/a")
    assert fs.now() == EPOCH + 3
    assert fs.stat("/tmp/b").mtime == EPOCH + 2
    assert fs.stat("/tmp/a").mtime == EPOCH + 3
    fs.read("/tmp/a")
    fs.listdir("/tmp")
    assert fs.now() == EPOCH + 3  # reads do not tick


def test_seed_from_dict_relative_paths_land_in_app() -> None:
    fs = VirtualFS.from_seed(
        {"src/": "", "src/a.py": "print(1)\n", "/etc/motd": "hi\n", "img.bin": b"\x89PNG"}
    )
    assert fs.read_text("/app/src/a.py") == "print(1)\n"
    assert fs.read_text("/etc/motd") == "hi\n"
    assert fs.read("/app/img.bin") == b"\x89PNG"
    assert fs.exists("/usr/bin/ls")
    assert not fs.exists("/app/main.py")  # the sample project is only in the default tree


def test_seed_from_folder_copies_files_and_leaves_the_folder_alone(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text("x = 1\n")
    (tmp_path / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (tmp_path / "run.sh").chmod(0o755)
    (tmp_path / "data.bin").write_bytes(b"\x00\x01")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    before = sorted(p.name for p in tmp_path.rglob("*"))
    fs = VirtualFS.from_seed(str(tmp_path), base="/work")
    assert fs.read_text("/work/pkg/mod.py") == "x = 1\n"
    assert fs.stat("/work/run.sh").mode == 0o755
    assert fs.read("/work/data.bin") == b"\x00\x01"
    assert fs.is_dir("/work/.git") and fs.listdir("/work/.git") == []  # excluded folders stay empty
    fs.write("/work/pkg/mod.py", "x = 2\n")
    fs.rmtree("/work/pkg")
    assert (tmp_path / "pkg" / "mod.py").read_text() == "x = 1\n"
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


def test_snapshot_round_trips_and_deepcopy_is_independent(fs: VirtualFS) -> None:
    fs.write("/tmp/x.txt", "hello")
    fs.symlink("/tmp/x.txt", "/tmp/link")
    snap = fs.snapshot()
    assert snap["/tmp/x.txt"] == "hello"
    assert snap["/tmp/"] == ""
    assert snap["/tmp/link"] == Symlink("/tmp/x.txt")
    rebuilt = VirtualFS()
    rebuilt.populate(snap, base="/")
    assert rebuilt.snapshot() == snap
    twin = copy.deepcopy(fs)
    twin.write("/tmp/x.txt", "changed")
    twin.rmtree("/app")
    assert fs.read_text("/tmp/x.txt") == "hello" and fs.exists("/app/main.py")
    assert twin.clock == fs.clock + 2
    assert fs.snapshot("/tmp") == {"/tmp/": "", "/tmp/link": Symlink("/tmp/x.txt"), "/tmp/x.txt": "hello"}


def test_existence_queries_follow_links_or_not(fs: VirtualFS) -> None:
    fs.symlink("/app/main.py", "/app/good")
    fs.symlink("/app/nowhere", "/app/dangling")
    fs.symlink("/tmp", "/app/dirlink")
    cases = {
        # path: (exists, lexists, is_dir, is_file, is_link)
        "/app/main.py": (True, True, False, True, False),
        "/app": (True, True, True, False, False),
        "/app/good": (True, True, False, True, True),
        "/app/dangling": (False, True, False, False, True),
        "/app/dirlink": (True, True, True, False, True),
        "/app/missing": (False, False, False, False, False),
        "/app/main.py/under": (False, False, False, False, False),
    }
    for path, expected in cases.items():
        got = (fs.exists(path), fs.lexists(path), fs.is_dir(path), fs.is_file(path), fs.is_link(path))
        assert got == expected, path


def test_base_is_a_copy_of_the_tree_built_path_by_path() -> None:
    built = VirtualFS.build_base()
    first = VirtualFS.base()
    assert first.root == built.root and first.clock == built.clock == EPOCH
    assert first.snapshot() == built.snapshot()
    first.write("/etc/hostname", "changed\n")
    first.mkdir("/srv/data")
    second = VirtualFS.base()  # a machine never sees another's changes
    assert second.read_text("/etc/hostname") == "agentworld\n"
    assert not second.exists("/srv/data")
    assert second.root == built.root
