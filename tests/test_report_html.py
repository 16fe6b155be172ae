"""report.html: every value escaped, nothing loaded from outside, and a real run's page read back by Chromium."""
from __future__ import annotations

import base64
import copy
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from collections.abc import Callable, Iterator

import pytest

import conformance.suite
from conformance.reference import ReferenceServer
from conformance.reference.faults import REGISTRY
from conformance.reporting import html as report_html
from tests.suite_runs import run_suite

#: Headless Chromium: $CONFORMANCE_CHROMIUM, else the first of these names on PATH.
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--enable-logging=stderr", "--v=0"]
TITLE = "API conformance report"
HOSTILE = '<script>document.title="owned"</script><img src="https://evil.example/x.png" onerror="alert(1)">'
# A fault and a few suite tests around its rule: a failure with a reproducer, passes and an observation.
FAULT, FAULT_RULE = "RangeMaxClamped", "RPC-IDX-004"
SUITE_DIR = Path(conformance.suite.__file__).parent
SELECTION = [str(SUITE_DIR / "rpc/index/test_is_accepted.py"),
             str(SUITE_DIR / "rpc/index/test_get_container_range.py") + "::test_above_maximum_to_fetch_is_rejected"]


# A small DOM, enough to find elements by tag and attribute in our page and in Chromium's dump of it.

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Node:
    def __init__(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tag, self.attrs = tag, {name: value or "" for name, value in attrs}
        self.children: list[Node | str] = []

    def text(self) -> str:
        return "".join(child if isinstance(child, str) else child.text() for child in self.children)

    def walk(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.walk()

    def select(self, tag: str | None = None, **attrs: str) -> list[Node]:
        """Descendants of `tag` (any when None) whose attributes match: data_rule stands for data-rule, and
        class_ matches one class among several."""
        wanted = {name.rstrip("_").replace("_", "-"): value for name, value in attrs.items()}
        return [node for node in self.walk() if node is not self and (tag is None or node.tag == tag)
                and all(node.has(name, value) for name, value in wanted.items())]

    def has(self, name: str, value: str) -> bool:
        if name == "class":
            return value in self.attrs.get("class", "").split()
        return self.attrs.get(name) == value

    def one(self, tag: str | None = None, **attrs: str) -> Node:
        found = self.select(tag, **attrs)
        assert len(found) == 1, f"expected one <{tag or '*'} {attrs}>, found {len(found)}"
        return found[0]


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", [])
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, attrs)
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, attrs))

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(page: str) -> Node:
    builder = _Builder()
    builder.feed(page)
    builder.close()
    return builder.root


# Hand-made reports ---------------------------------------------------------------------------------------

def rule(rule_id: str, status: str, *, api: tuple[str, ...] = ("index",), level: str = "must",
         **extra: Any) -> dict[str, Any]:
    return {"id": rule_id, "title": f"title of {rule_id}", "api": list(api), "level": level,
            "source": {"doc": "1-node-jsonrpc-apis.md", "section": "Index API"}, "status": status,
            "tests": [f"rpc/test_x.py::test_{rule_id.lower()}"], **extra}


FAILURE = {"test": "rpc/index/test_range.py::test_above_max[C/block]", "summary": "numToFetch 1025 is not refused",
           "expected": "a JSON-RPC error object", "received": "a result with 1024 containers",
           "reproducer": "curl -s -X POST http://node.example:9650/ext/index/C/block -d '{\"numToFetch\":1025}'",
           "message": "[RPC-IDX-004] numToFetch 1025 is not refused"}


def make_report() -> dict[str, Any]:
    return {
        "schema": "conformance-report/1",
        "suite": {"name": "conformance", "version": "9.8.7", "profile": "quick", "seed": 42, "gate": "standard",
                  "gated_levels": ["must", "standard"], "expectations": None, "python": "3.11.7",
                  "started": "2026-01-02T03:04:05+00:00", "finished": "2026-01-02T03:04:15+00:00",
                  "duration_s": 10.0},
        "target": {"reference": False, "apis": ["index"], "urls": {"node": "http://node.example:9650"},
                   "evm_chain": None, "versions": {"server": ["node/1.2"], "client": []}},
        "summary": {"tests": 5, "passed": 2, "failed": 1, "errors": 1, "skipped": 0, "expected_failures": 0,
                    "requests": 321, "exit_code": 1, "verdict": "violations"},
        "apis": {"index": {"score": {"passed": 1, "tested": 2, "ratio": 0.5},
                           "coverage": {"operations": {"exercised": 3, "total": 6},
                                        "rules": {"exercised": 4, "total": 5}},
                           "statuses": {"pass": 1, "fail": 1, "error": 1, "skip": 0, "untested": 1, "observed": 1}}},
        "rules": [
            rule("RPC-ENV-001", "pass", api=("admin", "index", "evm", "validators"), level="standard",
                 standard="JSON-RPC 2.0, 5 Response object"),
            rule("RPC-IDX-004", "fail", failures=[FAILURE]),
            rule("RPC-IDX-005", "error", errors=[{"test": "rpc/test_x.py::test_rpc-idx-005",
                                                   "message": "SuiteError: the target did not answer"}]),
            rule("RPC-IDX-016", "observed", level="observe",
                 observations=[{"test": "rpc/test_x.py::test_seen", "seen": {"status": 200, "answer": ["error"]}}]),
            rule("RPC-IDX-036", "untested", untestable="needs the node to be restarted"),
            rule("DATA-PAG-001", "not selected", api=("data",)),
        ],
        "tests": [],
        "operations": [{"api": "index", "operation": "index.getContainerRange", "requests": 3, "median_ms": 1.5,
                        "p95_ms": 2.5, "max_ms": 3.25}],
        "expectations": {"expected_failures": [], "expired": [], "unexpected_passes": [], "unused": []},
    }


def hostile_report() -> dict[str, Any]:
    """Every value the target or the user can put in a report, set to markup that would run if not escaped."""
    report = make_report()
    report["target"]["urls"]["node"] = "https://evil.example/" + HOSTILE
    report["target"]["evm_chain"] = HOSTILE
    report["target"]["versions"]["server"] = [HOSTILE]
    failing = next(r for r in report["rules"] if r["id"] == "RPC-IDX-004")
    failing["title"] = HOSTILE
    failing["failures"] = [{key: HOSTILE for key in FAILURE}]
    failing["expected"] = [{"rule": "RPC-IDX-004", "reason": HOSTILE, "expires": "2030-01-01"}]
    report["rules"][2]["errors"][0]["message"] = HOSTILE
    report["rules"][3]["observations"][0]["seen"] = {HOSTILE: HOSTILE}
    report["operations"][0]["operation"] = HOSTILE
    report["expectations"]["expired"] = [{"rule": "RPC-IDX-004", "test": HOSTILE, "reason": HOSTILE,
                                          "expires": HOSTILE}]
    return report


def test_every_rule_has_one_matrix_row_with_its_status_in_words() -> None:
    report = make_report()
    matrix = parse(report_html.render(report)).one(id="matrix")
    rows = [row for row in matrix.select("tr") if "data-rule" in row.attrs]
    assert {row.attrs["data-rule"]: row.attrs["data-status"] for row in rows} == \
        {r["id"]: r["status"] for r in report["rules"]}
    assert len(rows) == len(report["rules"])
    for row in rows:
        badge = row.one("span", class_="badge").text()
        assert row.attrs["data-status"] in badge, "a status must be written, not only coloured"
        assert row.select("th")[0].attrs.get("scope") == "row"


def test_rules_are_grouped_under_a_tested_api_and_the_rest_is_folded() -> None:
    matrix = parse(report_html.render(make_report())).one(id="matrix")
    index = matrix.one("table", data_api="index")
    assert index.one("tr", data_rule="RPC-ENV-001").text().count("also admin, evm, validators") == 1
    folded = matrix.one("details")
    assert folded.one("table", data_api="data").select("tr", data_rule="DATA-PAG-001")
    assert "needs the node to be restarted" in index.one("tr", data_rule="RPC-IDX-036").text()


def test_rules_of_apis_not_selected_are_filtered_by_a_class_name_without_a_space() -> None:
    page = parse(report_html.render(make_report()))
    box = page.one("input", value="not-selected")
    assert "(1)" in page.one(id="status-filter").text() and box.attrs["name"] == "status"
    assert '#matrix.hide-not-selected tr[data-status="not selected"]' in page.one("style").text()
    assert page.one("tr", data_rule="DATA-PAG-001").one("span", class_="s-not-selected")


def test_a_failing_page_starts_with_its_failures_and_every_rule_has_its_id_as_anchor() -> None:
    report = make_report()
    report["rules"][1]["quote"] = "numToFetch must be at most 1024."
    page_text = report_html.render(report)
    assert page_text.index('id="failures"') < page_text.index('id="scores"') < page_text.index('id="matrix"')
    page = parse(page_text)
    assert [a.attrs["href"] for a in page.one("nav").select("a")][:2] == ["#failures", "#scores"]
    assert page.one("article", id="RPC-IDX-004").one("blockquote").text() == "numToFetch must be at most 1024."
    for entry in report["rules"]:
        assert len(page.select(id=entry["id"])) == 1, entry["id"]


def test_scores_show_passed_over_tested_percent_and_coverage() -> None:
    row = parse(report_html.render(make_report())).one(id="scores").one("tr", data_api="index")
    cells = [cell.text() for cell in row.select("td")]
    assert cells[:4] == ["1/2", "50.0%", "3/6", "4/5"]


def test_header_names_the_verdict_target_and_run() -> None:
    page = parse(report_html.render(make_report()))
    header = page.one("header")
    assert header.one(id="verdict").attrs["data-verdict"] == "violations"
    for fact in ("http://node.example:9650", "9.8.7", "quick", "standard", "42", "2026-01-02T03:04:15+00:00",
                 "321", "node/1.2"):
        assert fact in header.text(), fact


def test_a_failure_shows_what_was_expected_what_came_back_and_its_reproducer() -> None:
    failures = parse(report_html.render(make_report())).one(id="failures")
    article = failures.one("article", data_rule="RPC-IDX-004")
    text = article.text()
    for value in (FAILURE["summary"], FAILURE["expected"], FAILURE["received"], FAILURE["test"]):
        assert value in text
    # The reproducer is the exact line, whole, so a copy of the <pre> runs as it is.
    assert article.one("pre", class_="repro").text() == FAILURE["reproducer"]


def test_errors_are_listed_apart_from_failures() -> None:
    page = parse(report_html.render(make_report()))
    assert page.one(id="errors").select("article", data_rule="RPC-IDX-005")
    assert "SuiteError: the target did not answer" in page.one(id="errors").text()
    assert not page.one(id="failures").select(data_rule="RPC-IDX-005")
    assert "did not answer" not in page.one(id="failures").text()


def test_observations_show_what_was_seen_as_json() -> None:
    report = make_report()
    details = parse(report_html.render(report)).one(id="observations").one("details", data_rule="RPC-IDX-016")
    assert json.loads(details.one("pre").text()) == report["rules"][3]["observations"][0]["seen"]


def test_expectations_list_expired_entries_and_unexpected_passes() -> None:
    report = make_report()
    entry = {"rule": "RPC-IDX-004", "reason": "vendor ticket 12", "expires": "2026-01-01"}
    report["expectations"]["expired"] = [entry]
    report["expectations"]["unexpected_passes"] = [dict(entry, expires="2027-01-01")]
    section = parse(report_html.render(report)).one(id="expectations")
    assert "vendor ticket 12" in section.one("table", data_kind="expired").text()
    assert "2027-01-01" in section.one("table", data_kind="unexpected_passes").text()


def test_operations_table_shows_timings() -> None:
    row = parse(report_html.render(make_report())).one(id="operations").select("tbody")[0].select("tr")[0]
    assert [cell.text() for cell in row.select("td")] == ["index", "3", "1.5", "2.5", "3.25"]


def test_a_run_stopped_before_testing_still_renders() -> None:
    report = make_report()
    report["suite"]["aborted"] = "the node did not answer"
    report["summary"]["verdict"] = "untestable"
    report.update(apis={}, rules=[], operations=[])
    page = parse(report_html.render(report))
    assert "the node did not answer" in page.one("header").text()
    assert page.one(id="verdict").attrs["data-verdict"] == "untestable"
    assert "No rule failed." in page.one(id="failures").text()


def test_hostile_values_are_shown_as_text() -> None:
    page_text = report_html.render(hostile_report())
    page = parse(page_text)
    scripts = page.select("script")
    assert [script.text() for script in scripts] == [report_html.SCRIPT], "only the page's own script may exist"
    assert not page.select("img")
    handlers = [(node.tag, name) for node in page.walk() for name in node.attrs if name.startswith("on")]
    assert not handlers
    assert page.one("title").text() == TITLE
    body = page.one("body").text()
    assert body.count(HOSTILE) >= 10, "each hostile value must show as the text it is"
    assert "<script>document" not in page_text


def test_the_page_references_nothing_outside_itself() -> None:
    page = parse(report_html.render(hostile_report()))
    for node in page.walk():
        assert node.tag not in ("link", "iframe", "object", "embed", "base", "img"), node.tag
        for name in ("src", "href", "action", "formaction", "poster", "srcset"):
            value = node.attrs.get(name)
            assert value is None or value == "" or value.startswith(("#", "data:")), f"<{node.tag} {name}={value}>"
    style = page.one("style").text()
    assert "@import" not in style and not re.search(r"url\((?!\s*['\"]?data:)", style)
    csp = page.one("meta", http_equiv="Content-Security-Policy").attrs["content"]
    assert "default-src 'none'" in csp and "unsafe-inline" not in csp


def test_the_security_policy_admits_exactly_the_page_style_and_script() -> None:
    page = parse(report_html.render(make_report()))
    csp = page.one("meta", http_equiv="Content-Security-Policy").attrs["content"]

    def digest(text: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"

    assert f"style-src {digest(page.one('style').text())};" in csp
    assert f"script-src {digest(page.one('script').text())};" in csp


def test_large_values_are_clipped_and_the_rest_counted() -> None:
    report = make_report()
    huge = "x" * 1_000_000
    report["rules"][1]["failures"] = [dict(FAILURE, received=huge, test=f"t{n}") for n in range(100)]
    report["rules"][2]["errors"] = [{"test": "t", "message": huge}]
    report["rules"][3]["observations"] = [{"test": f"t{n}", "seen": {"v": huge}} for n in range(100)]
    page_text = report_html.render(report)
    assert len(page_text) < 400_000, f"{len(page_text):,} characters: clipping failed"
    failures = parse(page_text).one(id="failures")
    assert len(failures.select("div", class_="failure")) == report_html.MAX_FAILURES_PER_RULE
    assert "and 80 more failures in report.json" in failures.text()
    assert "more characters in report.json" in failures.text()


# The real browser ----------------------------------------------------------------------------------------

def find_chromium() -> str | None:
    """$CONFORMANCE_CHROMIUM, else the first Chromium on PATH."""
    return os.environ.get("CONFORMANCE_CHROMIUM") or next(
        (path for name in CHROMIUM_NAMES if (path := shutil.which(name))), None)


def chromium_path() -> str:
    """The Chromium binary; without one the test skips, or fails where CONFORMANCE_REQUIRE_CHROMIUM=1 (CI)."""
    found = find_chromium()
    if found and Path(found).is_file():
        return found
    if found:
        pytest.fail(f"CONFORMANCE_CHROMIUM={found} is not a file", pytrace=False)
    if os.environ.get("CONFORMANCE_REQUIRE_CHROMIUM") == "1":
        pytest.fail(f"Chromium is missing (none of {', '.join(CHROMIUM_NAMES)} on PATH) and "
                    "CONFORMANCE_REQUIRE_CHROMIUM=1", pytrace=False)
    pytest.skip("Chromium is not found: install it (apt-get install chromium) or set CONFORMANCE_CHROMIUM=<binary> "
                "to check report.html in a real browser")


def in_chromium(test: Callable[..., None]) -> Callable[..., None]:
    """A test that reads the page in Chromium: it skips (or fails in CI) first thing when there is none, from this
    one place, so every such skip is one line of pytest's summary; its fixtures then did no work."""
    @functools.wraps(test)
    def checked(*args: Any, **kwargs: Any) -> None:
        chromium_path()
        test(*args, **kwargs)
    return checked


def chromium(target: Path, tmp_path: Path, *mode: str) -> subprocess.CompletedProcess[str]:
    """Loads file `target` in headless Chromium with its console logged to stderr."""
    binary = chromium_path()
    profile = tmp_path / f"chromium-profile-{len(list(tmp_path.iterdir()))}"
    try:
        done = subprocess.run([binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *mode,
                               target.resolve().as_uri()], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"Chromium did not finish loading {target} within 60 s")
    assert done.returncode == 0, f"Chromium exited with {done.returncode}:\n{done.stderr[-3000:]}"
    return done


def dump(target: Path, tmp_path: Path) -> tuple[Node, list[str]]:
    """Chromium's DOM of `target` after its script ran, and the console messages it logged."""
    done = chromium(target, tmp_path, "--dump-dom")
    return parse(done.stdout), console_messages(done.stderr)


def console_messages(log: str) -> list[str]:
    return [line for line in log.splitlines() if "CONSOLE" in line or "Uncaught" in line]


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    if not find_chromium():  # the run is only read back in Chromium: without it, no need to run the suite
        return Path(), {}
    report_dir = tmp_path_factory.mktemp("report")
    with ReferenceServer(faults=[REGISTRY[FAULT]()]) as server:
        run = run_suite(server, SELECTION, "--api", "index", "--report-dir", str(report_dir))
    assert run.exit_code == 1, run.output[-3000:]
    return report_dir, json.loads((report_dir / "report.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def real_page(real_run: tuple[Path, dict[str, Any]],
              tmp_path_factory: pytest.TempPathFactory) -> tuple[Node, list[str]]:
    if not find_chromium():
        return Node("#document", []), []
    return dump(real_run[0] / "report.html", tmp_path_factory.mktemp("chromium"))


@in_chromium
def test_chromium_shows_the_scores_of_a_real_run(real_run: tuple[Path, dict[str, Any]],
                                                 real_page: tuple[Node, list[str]]) -> None:
    scores = real_page[0].one(id="scores")
    for api, data in real_run[1]["apis"].items():
        cells = [cell.text() for cell in scores.one("tr", data_api=api).select("td")]
        score = data["score"]
        # the score, and beside it how many of the API's required rules it decided: never a whole of a part
        assert cells[0] == f"{score['passed']}/{score['tested']} ({score['tested']} of {score['required']} decided)"
        assert cells[1] == f"{data['score']['ratio']:.1%}"


@in_chromium
def test_chromium_shows_a_matrix_row_per_rule_with_its_status(real_run: tuple[Path, dict[str, Any]],
                                                              real_page: tuple[Node, list[str]]) -> None:
    rows = [row for row in real_page[0].one(id="matrix").select("tr") if "data-rule" in row.attrs]
    assert sorted((row.attrs["data-rule"], row.attrs["data-status"]) for row in rows) == \
        sorted((r["id"], r["status"]) for r in real_run[1]["rules"])
    assert {r["status"] for r in real_run[1]["rules"]} >= {"pass", "fail", "observed", "untested"}


@in_chromium
def test_chromium_shows_the_failure_with_its_reproducer(real_run: tuple[Path, dict[str, Any]],
                                                        real_page: tuple[Node, list[str]]) -> None:
    failing = next(r for r in real_run[1]["rules"] if r["id"] == FAULT_RULE)
    assert failing["status"] == "fail"
    article = real_page[0].one(id="failures").one("article", data_rule=FAULT_RULE)
    first = failing["failures"][0]
    shown = article.one("div", data_test=first["test"])
    assert first["expected"] in shown.text()
    assert shown.one("pre", class_="repro").text() == first["reproducer"]


@in_chromium
def test_chromium_logs_no_console_message_and_runs_the_filter(real_page: tuple[Node, list[str]]) -> None:
    page, console = real_page
    assert console == [], "\n".join(console)
    # The filter shows itself from its script: still hidden means the script was blocked or broke.
    assert "hidden" not in page.one("fieldset", id="status-filter").attrs
    assert page.one("title").text() == TITLE


@in_chromium
def test_chromium_paints_the_page(real_run: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    shot = tmp_path / "report.png"
    chromium(real_run[0] / "report.html", tmp_path, f"--screenshot={shot}", "--window-size=1280,1800",
             "--hide-scrollbars")
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG")
    # A blank 1280x1800 page compresses to about 10 kB; text, tables and badges take many times that.
    assert len(data) > 40_000, f"the screenshot is {len(data)} bytes: the page looks blank"


@in_chromium
def test_hostile_values_stay_inert_in_chromium(real_run: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    report = copy.deepcopy(real_run[1])
    failing = next(r for r in report["rules"] if r["id"] == FAULT_RULE)
    failing["title"] = HOSTILE
    failing["failures"][0].update(received=HOSTILE, reproducer=HOSTILE)
    report["target"]["urls"]["node"] = HOSTILE
    target = tmp_path / "hostile.html"
    target.write_text(report_html.render(report), encoding="utf-8")
    page, console = dump(target, tmp_path)
    assert console == [], "\n".join(console)
    assert page.one("title").text() == TITLE
    assert not page.select("img") and len(page.select("script")) == 1
    assert page.one(id="failures").text().count(HOSTILE) >= 3


@in_chromium
def test_the_console_check_catches_a_broken_page(tmp_path: Path) -> None:
    target = tmp_path / "broken.html"
    target.write_text("<!doctype html><title>broken</title><script>undefinedFunction()</script>", encoding="utf-8")
    _, console = dump(target, tmp_path)
    assert any("Uncaught" in line for line in console), "Chromium's console log is not where the check reads it"


@in_chromium   # the real run is made only where its page is read back in Chromium
def test_an_exchange_number_without_a_har_archive_says_how_to_get_one(real_run: tuple[Path, dict[str, Any]]) -> None:
    page = (real_run[0] / "report.html").read_text(encoding="utf-8")
    assert real_run[1]["suite"].get("har") is None and "<dt>Exchange</dt>" in page
    assert "run again with <code>--har FILE</code>" in page
