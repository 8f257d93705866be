"""The OSWorld look-alike: accessibility XML <-> table, OSWorld's linearisation, the DesktopEnv loop."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import pytest

PIL = pytest.importorskip("PIL")

from agentworld_plugins.adapters.gui.osworld import (  # noqa: E402
    ATTRIBUTES_NS,
    COMPONENT_NS,
    STATE_NS,
    DesktopEnv,
    computer13_to_code,
    linearize_accessibility_tree,
    table_to_xml,
    xml_to_table,
)

from agentworld_plugins.backends.scenario import ScenarioBackend  # noqa: E402
from agentworld_plugins.domains.formats.os import DEFAULT_OS_DESKTOP, parse_os_table, render_os_table  # noqa: E402

OSWORLD_XML = f"""<desktop-frame xmlns:st="{STATE_NS}" xmlns:attr="{ATTRIBUTES_NS}" xmlns:cp="{COMPONENT_NS}"
    xmlns:attrw="https://accessibility.windows.example.org/ns/attributes" name="main"
    cp:screencoord="(0, 0)" cp:size="(1920, 1080)">
  <application name="gnome-shell">
    <label name="Activities" st:showing="true" st:visible="true" st:enabled="true"
        cp:screencoord="(16, 0)" cp:size="(90, 32)"/>
    <panel name="Top Bar" st:showing="true" st:visible="true" st:enabled="true"
        cp:screencoord="(0, 0)" cp:size="(1920, 32)"/>
    <push-button name="Hidden" st:showing="false" st:visible="true" st:enabled="true"
        cp:screencoord="(5, 5)" cp:size="(10, 10)"/>
  </application>
  <application name="gedit">
    <frame name="notes.txt - gedit" st:showing="true" st:visible="true" st:enabled="true" st:active="true"
        cp:screencoord="(100, 80)" cp:size="(800, 600)">
      <push-button name="Save" st:showing="true" st:visible="true" st:enabled="true"
          attrw:class="GtkButton" cp:screencoord="(780, 86)" cp:size="(70, 34)"/>
      <text name="" st:showing="true" st:visible="true" st:enabled="true" st:editable="true"
          cp:screencoord="(100, 130)" cp:size="(800, 550)">She said "hi"</text>
      <entry name="Search" st:showing="true" st:visible="true" st:editable="true"
          cp:screencoord="(300, 86)" cp:size="(200, 30)">find me</entry>
      <push-button name="Off screen" st:showing="true" st:visible="true" st:enabled="true"
          cp:screencoord="(-40, 86)" cp:size="(30, 30)"/>
      <push-button name="" st:showing="true" st:visible="true" st:enabled="true"
          cp:screencoord="(10, 86)" cp:size="(30, 30)"/>
    </frame>
  </application>
</desktop-frame>"""


def test_osworld_xml_linearises_as_osworld_agents_do() -> None:
    assert linearize_accessibility_tree(OSWORLD_XML, platform="ubuntu").split("\n") == [
        "tag\tname\ttext\tclass\tdescription\tposition (top-left x&y)\tsize (w&h)",
        'label\tActivities\t""\t\t\t(16, 0)\t(90, 32)',
        'push-button\tSave\t""\tGtkButton\t\t(780, 86)\t(70, 34)',
        'text\t\t"She said ""hi"""\t\t\t(100, 130)\t(800, 550)',
        "entry\tSearch\tfind me\t\t\t(300, 86)\t(200, 30)",
    ]


def test_osworld_xml_to_the_world_model_table() -> None:
    table = xml_to_table(OSWORLD_XML).split("\n")
    assert table[0] == "\t".join(
        ["tag", "name", "text", "class", "description", "position (top-left x&y)", "size (w&h)"]
    )
    assert 'text\t\t"She said ""hi"""\t\t\t(100, 130)\t(800, 550)' in table
    assert 'entry\tSearch\t"find me"\t\t\t(300, 86)\t(200, 30)' in table
    assert not any(line.startswith("push-button\tHidden") for line in table)


@pytest.mark.parametrize(
    "table",
    [
        DEFAULT_OS_DESKTOP,
        "tag\tname\ttext\tclass\tdescription\tposition (top-left x&y)\tsize (w&h)\n"
        'text\tNotes\t"line one\\nline ""two"""\t\t\t(0, 40)\t(300, 200)\n'
        "check-box\tWrap\t\tGtkCheckButton\tchecked\t(10, 250)\t(80, 20)\n"
        "table cell\t7 items\tunquoted\t\t\t(1, 1)\t(2, 2)\n"
        "dialog\tSave as\t\t\t\t(400, 300)\t(500, 300)\n"
        'entry\tName\t"a&b<c>"\t\t\t(420, 350)\t(200, 30)\n'
        "icon\tTrash\t\t\t\t(1800, 900)\t(90, 90)\n"
        "label\tshort row",
        "tag\tname\trole\tposition (top-left x&y)\tsize (w&h)\npush-button\tOK\tbutton\t(1, 2)\t(3, 4)",
    ],
    ids=["default-desktop", "awkward-cells", "other-columns"],
)
def test_table_xml_round_trip(table: str) -> None:
    xml = table_to_xml(table)
    ET.fromstring(xml)  # well-formed
    assert xml_to_table(xml) == render_os_table(parse_os_table(table))  # short rows come back padded
    assert xml_to_table(table_to_xml(xml_to_table(xml))) == xml_to_table(xml)
    if "short row" not in table:
        assert xml_to_table(xml) == table


def test_xml_structure_follows_osworld() -> None:
    root = ET.fromstring(table_to_xml(DEFAULT_OS_DESKTOP))
    apps = [a.get("name") for a in root.findall("application")]
    assert apps == ["gnome-shell", "user@ubuntu: ~", "Untitled Document 1 - Text Editor"]
    front = root.findall("application")[-1][0]
    assert front.tag == "frame" and front.get(f"{{{STATE_NS}}}active") == "true"
    terminal = root.find(".//terminal")
    assert terminal is not None and terminal.text == "user@ubuntu:~$ "
    assert terminal.get(f"{{{COMPONENT_NS}}}screencoord") == "(90, 106)"
    assert terminal.get(f"{{{STATE_NS}}}editable") == "true"


def test_scripted_episode_offline() -> None:
    env = DesktopEnv(
        provider_name="docker",
        path_to_vm=None,
        action_space="pyautogui",
        screen_size=(1920, 1080),
        headless=True,
        require_a11y_tree=True,
        require_terminal=True,
        backend="offline",
    )
    obs = env.reset(task_config="os/gedit-write-note")
    script = [
        ("pyautogui.click(500, 300)", False),
        ("pyautogui.write('ls')", False),
        ("pyautogui.click(1200, 500)", False),
        ("pyautogui.write('Meeting at 10')", False),
        ("import(", False),
        ({"action_type": "HOTKEY", "parameters": {"keys": ["ctrl", "a"]}}, False),
        ({"action_type": "CLICK", "parameters": {"x": 1200, "y": 500, "button": "left"}}, False),
        ({"action_type": "JUMP"}, False),
        ("WAIT", False),
        ("DONE", True),
    ]
    for number, (action, done_expected) in enumerate(script, 1):
        assert set(obs) == {"screenshot", "accessibility_tree", "terminal", "instruction"}
        assert obs["instruction"] == "Type 'Meeting at 10' into the open text editor document."
        assert PIL.Image.open(io.BytesIO(obs["screenshot"])).size == (1920, 1080)
        ET.fromstring(obs["accessibility_tree"])
        obs, reward, done, info = env.step(action, pause=0)
        assert reward == 0 and done is done_expected, number
        if number in (5, 8):
            assert info["action_error"] and info["is_error"] is True
        else:
            assert info["action_error"] is None, (number, info)
    assert info["done"] is True
    assert obs["terminal"] == "user@ubuntu:~$ ls"
    assert 'text\tUntitled Document 1\t"Meeting at 10"' in xml_to_table(obs["accessibility_tree"])
    assert env.evaluate() == 1.0
    assert env.render().startswith(b"\x89PNG")
    assert env.vm_screen_size == {"width": 1920, "height": 1080} and env.vm_platform == "Linux"
    assert env.action_history[-1] == "DONE" and len(env.action_history) == 10
    env.close()


def test_options_fail_and_infeasible_evaluation() -> None:
    env = DesktopEnv(require_a11y_tree=False, backend="offline")
    obs = env.reset(task_config={"id": "free", "instruction": "Do nothing"})
    assert obs["accessibility_tree"] is None and obs["terminal"] is None
    obs, _reward, done, info = env.step("FAIL")
    assert done is True and info["fail"] is True and env.evaluate() == 0.0
    env.reset(task_config="os/infeasible-install-photoshop")
    env.step("FAIL")
    assert env.evaluate() == 1.0
    env.reset(task_config="os/infeasible-install-photoshop")
    env.step("DONE")
    assert env.evaluate() == 0.0
    result = env.controller.execute_python_command("pyautogui.click(10, 10)")
    assert result["status"] == "success"
    assert env.controller.execute_python_command("def")["status"] == "error"


def test_malformed_model_output_keeps_the_desktop() -> None:
    backend = ScenarioBackend(
        {
            "ordered": True,
            "steps": [
                {"match": "WAIT", "observation": "The desktop looks the same as before."},
                {"match": {"regex": "pyautogui.click"}, "observation": DEFAULT_OS_DESKTOP},
            ],
        }
    )
    env = DesktopEnv(task={"initial_state": DEFAULT_OS_DESKTOP}, backend=backend)
    obs = env.reset()
    obs, _, _, info = env.step("WAIT")
    assert "not a os screen" in info["observation_error"]
    assert xml_to_table(obs["accessibility_tree"]) == DEFAULT_OS_DESKTOP
    obs, _reward, _done, info = env.step("pyautogui.click(5, 5)")
    assert info["observation_error"] is None
    backend.assert_done()


def test_computer13_actions_go_through_the_controller() -> None:
    assert computer13_to_code({"action_type": "CLICK", "parameters": {"x": 1, "y": 2, "num_clicks": 2}}) == (
        "pyautogui.click(x=1, y=2, clicks=2)"
    )
    assert computer13_to_code({"action_type": "SCROLL", "parameters": {"dx": 1, "dy": -2}}) == (
        "pyautogui.hscroll(1)\npyautogui.vscroll(-2)"
    )
    env = DesktopEnv(action_space="computer_13", require_a11y_tree=False, backend="offline")
    env.reset()
    before = env.table_text
    _obs, _r, done, info = env.step({"action_type": "HOTKEY", "parameters": {"keys": "ctrl+s"}})
    assert info["action_error"] == "Exception: Keys must be a list of keys" and not done
    _obs, _r, done, info = env.step({"action_type": "DRAG_TO", "parameters": {}})  # sends nothing
    assert info["action_error"] is None and env.table_text == before
    _obs, _r, done, info = env.step({"action_type": "done"})  # action types are case-sensitive
    assert info["action_error"] == "Exception: Unknown action type: done"
    _obs, _r, done, info = env.step("pyautogui.click()")  # computer_13 takes dicts
    assert info["action_error"].startswith("TypeError: ")
    _obs, _r, done, info = env.step({"action_type": "DONE"})  # OSWorld ends on the string only
    assert not done and info["action_error"] is None
    _obs, _r, done, info = env.step("DONE")
    assert done and info["done"] is True
