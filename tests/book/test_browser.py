"""A real browser reads the built book from file:// with the network switched off."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "_build" / "screenshots"
pytestmark = [pytest.mark.book, pytest.mark.browser]


@pytest.fixture(scope="module")
def browser():
    chromium, driver_bin = shutil.which("chromium"), shutil.which("chromedriver")
    if not (chromium and driver_bin):
        pytest.skip("Chromium or chromedriver is not installed (Debian: chromium chromium-driver; .ci/run installs them)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,1600",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run",
                 # no network: every host name fails to resolve and every proxy is a dead port
                 "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=http://127.0.0.1:9"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(driver_bin), options=options)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(60)
    yield driver
    driver.quit()


def _open(browser, page: Path, shot: str) -> dict:
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(page.as_uri())
    # file:// navigations can return before the new document has loaded
    WebDriverWait(browser, 60).until(lambda b: b.execute_script(
        "return document.readyState === 'complete' && document.URL === arguments[0]", page.as_uri()))
    state = browser.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const ready = (window.MathJax && MathJax.startup) ? MathJax.startup.promise : Promise.resolve();
        ready.then(() => Promise.all([...document.images].map(i => i.complete ? 0 :
            new Promise(r => { i.onload = i.onerror = r; }))))
          .then(() => done({
            mathjax: document.querySelectorAll('mjx-container').length,
            images: [...document.querySelectorAll('article img')].map(i => i.naturalWidth),
            mathjaxSrc: [...document.scripts].map(s => s.src).filter(s => s.includes('mathjax')),
          }));
    """)
    SHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SHOTS / f"{shot}.png"))
    return state


def test_every_chapter_shows_its_figures(book_run, browser):
    from seqmi import book

    html = book_run.html().parent
    for chapter in book.chapters(ROOT):
        state = _open(browser, html / "notebooks" / f"{chapter}.html", chapter)
        assert state["images"], f"{chapter} shows no figure"
        assert all(w > 0 for w in state["images"]), f"{chapter}: an image failed to load: {state['images']}"


def test_intro_and_primer_render_offline(book_run, browser):
    html = book_run.html().parent
    intro = _open(browser, html / "book" / "intro.html", "intro")
    assert intro["mathjax"] > 0, "no math typeset on the intro page"
    assert all(src.startswith("file://") for src in intro["mathjaxSrc"]), intro["mathjaxSrc"]
    primer = _open(browser, html / "notebooks" / "00_mutual_information.html", "primer")
    assert primer["mathjax"] > 5, "the primer's equations were not typeset"
    assert len(primer["images"]) >= 2, "the primer's figures are missing"
    assert all(w > 0 for w in primer["images"]), f"an image failed to load: {primer['images']}"


def test_chapter_links_to_its_api_page(book_run, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    html = book_run.html().parent
    _open(browser, html / "notebooks" / "00_mutual_information.html", "primer-api-link")
    link = browser.find_element(By.CSS_SELECTOR, 'article a[href$="api/info.html#seqmi.info.two_point_mi"]')
    link.click()
    target = (html / "book" / "api" / "info.html").as_uri() + "#seqmi.info.two_point_mi"
    WebDriverWait(browser, 60).until(lambda b: b.current_url == target and
                                     b.execute_script("return document.readyState") == "complete")
    entry = browser.find_element(By.ID, "seqmi.info.two_point_mi")
    assert entry.is_displayed() and "two_point_mi" in entry.text
    described = browser.execute_script("return arguments[0].parentElement.querySelector('dd').innerText", entry)
    assert "Parameters" in described, "the API entry shows no parameter list"
    browser.save_screenshot(str(SHOTS / "api-info.png"))


def test_download_menu_offers_source_and_notebook_offline(book_run, browser):
    from selenium.webdriver.common.by import By
    from urllib.parse import unquote, urlparse

    html = book_run.html().parent
    _open(browser, html / "notebooks" / "00_mutual_information.html", "primer-downloads")
    browser.find_element(By.CSS_SELECTOR, 'button[aria-label="Download this page"]').click()
    links = {}
    for css in ("a.btn-download-chapter-source-button", "a.btn-download-source-button"):
        link = browser.find_element(By.CSS_SELECTOR, css)
        assert link.is_displayed(), f"{css} is not shown in the opened download menu"
        links[link.text.strip()] = Path(unquote(urlparse(link.get_attribute("href")).path))
    assert set(links) == {".md", ".ipynb"}, links
    assert links[".md"].read_text() == (ROOT / "notebooks" / "00_mutual_information.md").read_text()
    assert '"outputs"' in links[".ipynb"].read_text()
    browser.save_screenshot(str(SHOTS / "primer-downloads.png"))


def test_scoreboard_lists_every_claim_and_links_the_chapters(book_run, browser):
    from seqmi import book
    from seqmi.claims import scoreboard

    html = book_run.html().parent
    page = html / "book" / "claims.html"
    browser.set_window_size(1366, 768)  # a laptop screen
    try:
        _open(browser, page, "scoreboard")
        rows = scoreboard.collect(ROOT, book.chapters(ROOT), book_run.out / "artifacts")
        table = browser.execute_script("""
            const tables = [...document.querySelectorAll('article table')];
            const main = tables[tables.length - 1];
            return [...main.querySelectorAll('tbody tr')].map(tr => ({
                id: tr.cells[0].innerText.trim(), verdict: tr.cells[3].innerText.trim(),
                right: tr.cells[3].getBoundingClientRect().right,
                href: (tr.cells[5].querySelector('a') || {}).href || null}));
        """)
        width = browser.execute_script("""
            const main = document.querySelector('main') || document.body;
            const tables = [...document.querySelectorAll('article table')];
            const t = tables[tables.length - 1];
            return {scroll: main.scrollWidth, client: main.clientWidth, window: window.innerWidth,
                    table: t.scrollWidth, room: t.parentElement.clientWidth};
        """)
        details = browser.execute_script(
            "return [...document.querySelectorAll('article dl dd')].map(d => d.innerText.trim());")
        # the menus above the table show one paper's claims with one verdict
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import Select

        Select(browser.find_element(By.NAME, "verdict")).select_by_value("inconclusive")
        Select(browser.find_element(By.NAME, "paper")).select_by_value("Shen")
        filtered = browser.execute_script("""
            return {ids: [...document.querySelectorAll('.scoreboard-claims tbody tr')]
                        .filter(tr => tr.getClientRects().length > 0).map(tr => tr.cells[0].innerText.trim()),
                    count: document.querySelector('.scoreboard-count').innerText};""")
    finally:
        browser.set_window_size(1280, 1600)
    assert [r["id"] for r in table] == [r.claim["id"] for r in rows]
    # a verdict's badge, marked † where its rule was edited after its run's numbers
    shown_verdicts = [r.claim["verdict"] + (f" {scoreboard.CHANGED_MARK}" if r.rule_changed else "") for r in rows]
    assert [r["verdict"] for r in table] == shown_verdicts
    # the page does not scroll sideways, and the verdict column is on screen
    assert width["scroll"] <= width["client"] and width["table"] <= width["room"], width
    assert max(r["right"] for r in table) <= width["window"], (max(r["right"] for r in table), width)
    # below the table, each claim's scale and its verdicts in the chapter's other runs
    assert len(details) == len(rows)
    for row, text in zip(rows, details):
        others = "; ".join(f"{o}: {v}" for o, v in row.elsewhere) or "—"
        assert f"Other runs: {others}." in text, (row.claim["id"], text)
    chosen = [r.claim["id"] for r in rows
              if r.claim["verdict"] == "inconclusive" and scoreboard.paper_tag(r.claim["id"]) == "Shen"]
    assert filtered["ids"] == chosen and filtered["count"] == f"{len(chosen)} of {len(rows)} claims shown"
    for row, shown in zip(rows, table):
        # each row links to its chapter's claims section, which exists in the rendered chapter
        assert shown["href"] and f"notebooks/{row.chapter}.html#claims-" in shown["href"], shown
        fragment = shown["href"].split("#", 1)[1]
        assert f'id="{fragment}"' in (html / "notebooks" / f"{row.chapter}.html").read_text(), fragment


def test_a_recorded_figure_is_shown_where_the_chapter_draws_it(book_run, browser):
    html = book_run.html().parent
    chapter = "03_rnn_transformer_mi"
    browser.set_window_size(1366, 768)  # a laptop screen
    try:
        _open(browser, html / "notebooks" / f"{chapter}.html", "recorded-figure-in-place")
        found = browser.execute_script("""
            const tabs = document.querySelector('article .seqmi-figure-tabs');
            const end = document.getElementById('recorded-runs-at-larger-scale');
            if (!tabs || !end) return null;
            const img = tabs.querySelector('.sd-tab-content img');
            return {before: !!(tabs.compareDocumentPosition(end) & Node.DOCUMENT_POSITION_FOLLOWING),
                    label: tabs.querySelector('label').innerText, width: img.naturalWidth,
                    visible: img.getBoundingClientRect().height > 0};
        """)
        # neither the page nor a code cell the reader sees scrolls sideways
        layout = browser.execute_script("""
            const main = document.querySelector('main') || document.body;
            // folded cells (the parameters cell, exercise solutions) are not what a reader sees
            const shown = [...document.querySelectorAll('article div.cell_input pre')]
                .filter(p => p.getClientRects().length > 0 && !p.closest('details:not([open])'));
            return {scroll: main.scrollWidth, client: main.clientWidth, cells: shown.length,
                    wide: shown.filter(p => p.scrollWidth > p.clientWidth)
                               .map(p => p.innerText.split('\\n')[0])};
        """)
    finally:
        browser.set_window_size(1280, 1600)
    assert found, "no figure shown in place, or no end-of-chapter section"
    assert found["before"] and found["label"].startswith("reference run"), found
    assert found["width"] > 0 and found["visible"], found
    assert layout["scroll"] <= layout["client"] and layout["cells"] > 10 and not layout["wide"], layout


def test_a_chapter_opens_with_its_question_within_two_laptop_screens(book_run, browser):
    from seqmi import book

    html = book_run.html().parent
    browser.set_window_size(1366, 768)  # a laptop screen
    try:
        opening = {}
        for chapter in book.chapters(ROOT):
            _open(browser, html / "notebooks" / f"{chapter}.html", f"{chapter}-opening")
            opening[chapter] = browser.execute_script("""
                const top = el => el ? el.getBoundingClientRect().top + window.scrollY : null;
                const section = document.querySelector('article h2');
                const box = document.querySelector('article .admonition.tip');
                // unfolded code cells before the first section, and their lines
                const cells = [...document.querySelectorAll('article div.cell_input')]
                    .filter(c => top(c) < top(section) && c.getClientRects().length > 0
                                 && !c.closest('details:not([open])'))
                    .map(c => c.innerText.split('\\n').filter(l => l.trim()).length);
                return {screen: window.innerHeight, section: top(section), box: top(box),
                        title: (box && box.querySelector('.admonition-title').innerText) || '', cells};
            """)
    finally:
        browser.set_window_size(1280, 1600)
    for chapter, o in opening.items():
        # title, question, what it checks and the run box, then the first section: two screens
        assert o["section"] is not None and o["section"] < 2 * o["screen"], (chapter, o)
        assert o["box"] is not None and o["box"] < o["section"] and o["title"].startswith("Run this chapter"), o
        assert all(n <= 15 for n in o["cells"]), f"{chapter}: a visible set-up cell of more than 15 lines: {o}"
