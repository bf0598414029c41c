"""pytest plugin (loaded with -p tck_outcomes) that writes one JSON line per test.

Written for run-tck.sh in the kit directory (npm run tck:setup).  It does not change how tests run; it only
records, per test item: nodeid, final outcome (passed/failed/error/skipped/xfailed/
xpassed), a one-line reason, the item's marker names, and the A2A requirement
id/level the item is about (from the parametrized `requirement` object or from a
requirement id such as CORE-SEND-001 in the test's docstring).
Output file: --tck-outcomes=PATH (appends).  --tck-collect-only-outcomes writes one
line per collected item with outcome "collected" (used with --collect-only).
"""
from __future__ import annotations

import json
import re

import pytest

_REQ_RE = re.compile(r"\b([A-Z][A-Z0-9_]+-[A-Z0-9]+-\d+)\b")
_state: dict[str, dict] = {}
_items: dict[str, pytest.Item] = {}


def pytest_addoption(parser):
    g = parser.getgroup("tck-outcomes")
    g.addoption("--tck-outcomes", dest="tck_outcomes", default=None)
    g.addoption("--tck-run-label", dest="tck_run_label", default="")
    g.addoption("--tck-only-transports", dest="tck_only_transports", default=None,
                help="1.0-dev: deselect tests bound (by `transport` parameter or by a "
                     "grpc/jsonrpc/http_json marker) to a transport not in this comma list")


_TRANSPORTS = ("grpc", "jsonrpc", "http_json")


def _item_transport(item):
    callspec = getattr(item, "callspec", None)
    if callspec is not None and callspec.params.get("transport") in _TRANSPORTS:
        return callspec.params["transport"]
    for name in _TRANSPORTS:
        if item.get_closest_marker(name) is not None:
            return name
    return None


def pytest_collection_modifyitems(config, items):
    only = config.getoption("tck_only_transports")
    if not only:
        return
    keep_set = {t.strip() for t in only.split(",") if t.strip()}
    keep, drop = [], []
    for item in items:
        t = _item_transport(item)
        (drop if t is not None and t not in keep_set else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def _oneline(text: str, limit: int = 300) -> str:
    text = (text or "").strip()
    for line in text.splitlines():
        line = line.strip()
        if line:
            text = line
            break
    text = re.sub(r"\s+", " ", text)
    return text[:limit]


def _item_meta(item: pytest.Item) -> dict:
    markers = sorted({m.name for m in item.iter_markers()})
    req_id = None
    req_level = None
    callspec = getattr(item, "callspec", None)
    if callspec is not None:
        req = callspec.params.get("requirement")
        if req is not None and hasattr(req, "id"):
            req_id = req.id
            lvl = getattr(req, "level", None)
            req_level = getattr(lvl, "value", lvl)
    if req_id is None:
        func = getattr(item, "function", None)
        doc = (getattr(func, "__doc__", None) or "")
        m = _REQ_RE.search(doc)
        if m is None and getattr(item, "cls", None) is not None:
            m = _REQ_RE.search(item.cls.__doc__ or "")
        if m:
            req_id = m.group(1)
    if req_id is not None and req_level is None:
        try:  # 1.0-dev branch only: the requirement registry
            from tck.requirements.registry import get_requirement_by_id
            req_level = get_requirement_by_id(req_id).level.value
        except Exception:
            req_level = None
    transport = None
    if callspec is not None:
        transport = callspec.params.get("transport")
    return {"markers": markers, "requirement": req_id, "requirement_level": req_level,
            "transport_param": transport}


def pytest_collection_finish(session):
    for item in session.items:
        _items[item.nodeid] = item


def _reason(report) -> str:
    lr = report.longrepr
    if lr is None:
        return ""
    if isinstance(lr, tuple) and len(lr) == 3:  # skip: (path, lineno, reason)
        return _oneline(str(lr[2]).replace("Skipped: ", "", 1))
    crash = getattr(lr, "reprcrash", None)
    if crash is not None and getattr(crash, "message", None):
        return _oneline(crash.message)
    return _oneline(str(lr))


@pytest.hookimpl(trylast=True)
def pytest_runtest_logreport(report):
    st = _state.setdefault(report.nodeid, {"outcome": None, "reason": ""})
    wasxfail = getattr(report, "wasxfail", None)
    if report.when == "setup":
        if report.failed:
            st.update(outcome="error", reason="setup: " + _reason(report))
        elif report.skipped:
            if wasxfail is not None:
                st.update(outcome="xfailed", reason=_oneline(wasxfail) or _reason(report))
            else:
                st.update(outcome="skipped", reason=_reason(report))
    elif report.when == "call":
        if wasxfail is not None:
            if report.skipped:
                st.update(outcome="xfailed", reason=_oneline(wasxfail) or _reason(report))
            else:
                st.update(outcome="xpassed", reason=_oneline(wasxfail))
        elif report.passed:
            st.update(outcome="passed", reason="")
        elif report.failed:
            st.update(outcome="failed", reason=_reason(report))
        elif report.skipped:
            st.update(outcome="skipped", reason=_reason(report))
    elif report.when == "teardown":
        if report.failed and st["outcome"] in (None, "passed"):
            st.update(outcome="error", reason="teardown: " + _reason(report))


def _tck_collector_records(session) -> dict:
    """1.0-dev only: what the TCK's own CompatibilityCollector recorded, keyed by test nodeid."""
    import sys
    out: dict[str, list] = {}
    mod = sys.modules.get("tests.compatibility.conftest")
    key = getattr(mod, "_collector_key", None) if mod else None
    if key is None:
        return out
    collector = session.config.stash.get(key, None)
    if collector is None:
        return out
    for r in collector.get_results():
        out.setdefault(r.test_id, []).append({
            "requirement": r.requirement_id, "transport": r.transport, "level": r.level,
            "passed": bool(r.passed), "skipped": bool(r.skipped),
            "error": _oneline(" ".join(r.errors or []))})
    return out


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session):
    path = session.config.getoption("tck_outcomes")
    if not path:
        return
    label = session.config.getoption("tck_run_label")
    tck_recs = _tck_collector_records(session)
    collect_only = session.config.getoption("collectonly")
    with open(path, "a", encoding="utf-8") as fh:
        for nodeid, item in _items.items():
            if collect_only:
                rec = {"nodeid": nodeid, "outcome": "collected", "reason": ""}
            else:
                st = _state.get(nodeid)
                if st is None or st["outcome"] is None:
                    rec = {"nodeid": nodeid, "outcome": "not-run",
                           "reason": "test did not run (session interrupted?)"}
                else:
                    rec = {"nodeid": nodeid, **st}
            rec["label"] = label
            if nodeid in tck_recs:
                rec["tck_records"] = tck_recs[nodeid]
            try:
                rec.update(_item_meta(item))
            except Exception as exc:  # never break the run because of reporting
                rec.update(markers=[], requirement=None, requirement_level=None,
                           meta_error=repr(exc))
            fh.write(json.dumps(rec) + "\n")
