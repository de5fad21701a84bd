"""`bgai serve`'s page in a real browser: Debian's Chromium, driven by Selenium.

The server runs in a thread on a free localhost port; the page is opened with a dice seed
(``?seed=``) so the match is the same every run, and ``speed=0`` so that the bot's moves are
shown without pauses. The test plays as a person would: it clicks checkers and the points the
page offers, drags a checker, undoes a step, takes a move from the hint list, resigns the first
game (the bot accepts), starts the next, doubles when the hint says to (with this seed the bot
passes, which ends the game), downloads the .mat, and checks that the browser's console stayed
free of errors. Screenshots go to a temporary folder (``BGAI_SCREENSHOTS=DIR`` keeps them
there instead).

CI installs chromium and chromium-driver (.ci/run); only on a machine without them is the
test skipped, and never under CI.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import threading
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
FLAGS = (
    "--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking "
    "--disable-component-update --disable-sync --window-size=1400,1000"
).split()
SEED = 3


def _need(condition: bool, why: str) -> None:
    if condition:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{why}: CI installs it (.ci/run)")
    pytest.skip(f"{why} (apt-get install chromium chromium-driver; pip install -e '.[test]')")


@pytest.fixture(scope="module")
def server():
    _need(shutil.which("uvicorn") is not None or _importable("uvicorn"), "the web extra is not installed")
    import uvicorn

    from bgai.serve.app import create_app
    from bgai.serve.state import Opponents

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(Opponents(["beginner"]), threads=2)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


def _importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    _need(Path(CHROMIUM).is_file() and Path(CHROMEDRIVER).is_file(), f"no {CHROMIUM} / {CHROMEDRIVER}")
    _need(_importable("selenium"), "selenium is not installed")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


class Page:
    """The page as the test sees it: waits, clicks, reads."""

    def __init__(self, driver, shots: Path) -> None:
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait

        self.d, self.By, self.shots = driver, By, shots
        self.wait = WebDriverWait(driver, 20, poll_frequency=0.02)

    def find(self, css: str):
        return self.d.find_elements(self.By.CSS_SELECTOR, css)

    def button(self, name: str):
        return self.d.find_element(self.By.ID, name)

    def idle(self) -> str:
        """Wait until no request or animation is running; what the person must do now."""
        self.wait.until(
            lambda d: d.find_element(self.By.TAG_NAME, "body").get_attribute("data-busy") == "false"
        )
        return self.d.find_element(self.By.TAG_NAME, "body").get_attribute("data-awaiting")

    def click(self, name: str) -> str:
        button = self.button(name)
        assert button.is_enabled(), f"{name} is disabled"
        button.click()
        return self.idle()

    def text(self, name: str) -> str:
        return self.button(name).text

    def pips(self) -> tuple[int, int]:
        return int(self.text("you-pips")), int(self.text("bot-pips"))

    def log(self) -> str:
        """Every line of the game log, newest first (also those scrolled out of view)."""
        return self.d.execute_script(
            "return [...document.querySelectorAll('#log li')].map(li => li.textContent).join('\\n')"
        )

    def shot(self, name: str) -> None:
        self.d.save_screenshot(str(self.shots / f"{name}.png"))

    def step(self) -> None:
        """Click the first checker that may move, and the first point offered for it."""
        self.find(".checker.movable")[0].click()
        dests = self.find("rect.dest")
        if dests:
            dests[0].click()

    def drag_step(self) -> bool:
        """Drag a checker onto a point it may go to (found by picking it first, then putting it back)."""
        from selenium.webdriver.common.action_chains import ActionChains

        for point in [c.get_attribute("data-point") for c in self.find(".checker.movable")]:
            mine = f'.checker.movable[data-point="{point}"]'
            self.find(mine)[0].click()
            dests = self.find("rect.dest")
            if not dests:  # it had one place to go and went there: take it back
                self.click("undo")
                continue
            to = dests[0].rect
            self.find(mine)[0].click()  # put it down again: nothing is picked
            assert not self.find("rect.dest")
            source = self.find(mine)[0]
            dx = to["x"] + to["width"] / 2 - (source.rect["x"] + source.rect["width"] / 2)
            dy = to["y"] + to["height"] / 2 - (source.rect["y"] + source.rect["height"] / 2)
            drag = ActionChains(self.d).click_and_hold(source).move_by_offset(round(dx / 2), round(dy / 2))
            drag.move_by_offset(round(dx) - round(dx / 2), round(dy) - round(dy / 2)).release().perform()
            return True
        return False

    def play_hint(self) -> str:
        """Play the best move of the hint list: a click on it, then Done."""
        self.click("hint")
        self.find("#hint-panel tr.hint-move")[0].click()
        return self.click("done")

    def play_move(self) -> str:
        """Play a whole move by clicking, then Done."""
        for _ in range(20):
            if self.button("done").is_enabled():
                break
            self.step()
        return self.click("done")


def test_play_a_match_in_the_browser(server, browser, tmp_path):
    shots = Path(os.environ.get("BGAI_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    page = Page(browser, shots)
    browser.get(f"{server}/?seed={SEED}&speed=0")
    page.wait.until(lambda d: page.find("#opponent option"))
    assert page.button("opponent").get_attribute("value") == "beginner"
    from selenium.webdriver.support.ui import Select

    Select(page.button("length")).select_by_value("3")
    Select(page.button("clock")).select_by_value("3/12")
    page.shot("0-start")
    awaiting = page.click("new-match")
    assert "New game" in page.log() and "Opening roll" in page.log()
    assert page.button("you-clock").is_displayed() and ":" in page.text("you-clock")

    # the first move by clicking, with a step taken back
    moves_played = 0
    while awaiting != "move":
        awaiting = page.click("roll")
    start_pips = page.pips()
    page.step()
    assert page.pips()[0] < start_pips[0], "a step moves a checker"
    assert page.button("undo").is_enabled()
    page.click("undo")
    assert page.pips() == start_pips, "undo puts the checker back"
    page.shot("1-move")
    assert page.drag_step(), "no checker with a choice of points to drag to"
    assert page.pips()[0] < start_pips[0] and page.button("undo").is_enabled(), "the dragged checker moved"
    awaiting = page.play_move()
    moves_played += 1
    assert "You play" in page.log()

    # a move from the hint list
    while awaiting in ("roll", "answer"):
        awaiting = page.click("roll" if awaiting == "roll" else "take")
    assert awaiting == "move", (awaiting, page.log())
    page.click("hint")
    rows = page.find("#hint-panel tr.hint-move")
    assert rows and page.button("hint-panel").is_displayed()
    best = rows[0].get_attribute("data-move")
    page.shot("2-hint")
    awaiting = page.play_hint()
    moves_played += 1
    assert "You play" in page.log() and best in page.log()

    # offer to resign a single game: early in the game the bot takes the point
    while awaiting == "answer":
        awaiting = page.click("take")
    assert awaiting in ("roll", "move")
    awaiting = page.click("resign-1")
    assert "accepts your resignation" in page.log(), page.log()
    assert awaiting == "next" and "accepts your resignation" in page.text("banner")
    assert int(page.text("bot-score")) >= 1

    # the next games, played from the hint list: double when the hint says so; the bot takes or passes
    # (a game may end before the hint ever says double: then the next one, while the match lasts)
    awaiting = page.click("next")
    assert "Game 2" in page.log()
    doubled = False
    for _game in range(4):
        for _ in range(300):
            if awaiting == "roll" and not doubled and page.button("double").is_enabled():
                page.click("hint")
                if re.search(r"Cube action: (Re)?[Dd]ouble", page.text("hint-panel")):
                    awaiting = page.click("double")
                    doubled = True
                    page.shot("3-double")
                    offered = re.search(r"You double to (\d+)\.", page.log())
                    assert offered, page.log()
                    assert f"takes: the cube is at {offered[1]}" in page.log() or " passes." in page.log()
                else:
                    awaiting = page.click("roll")
            elif awaiting == "roll":
                awaiting = page.click("roll")
            elif awaiting == "move":
                awaiting = page.play_hint()
                moves_played += 1
            elif awaiting == "answer":
                awaiting = page.click("take")
            else:
                break
        if doubled or awaiting != "next":
            break
        awaiting = page.click("next")
    assert doubled
    assert awaiting in ("next", "over"), f"the game did not end ({awaiting})"
    banner = page.button("banner")
    assert banner.is_displayed() and re.search(
        r"wins? (a single game|a gammon|a backgammon|\d+ points?)", banner.text
    )
    page.shot("4-game-over")

    # the match as a .mat file
    href = page.button("download").get_attribute("href")
    with urllib.request.urlopen(href, timeout=10) as response:
        mat = response.read().decode()
    assert "point match" in mat and "Game 1" in mat and "Doubles => 2" in mat

    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert not errors, errors
    assert moves_played >= 3, page.log()
    assert len(list(shots.glob("*.png"))) == 5
