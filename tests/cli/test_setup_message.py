"""`make setup` with no C compiler says only what is true: each engine not compiled and why, then
that none was, with the fix; never "compiled engines in ..."."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from games import native, native_build


def test_without_a_compiler_nothing_claims_to_be_compiled(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setattr(native, "build_root", lambda: tmp_path / "build")
    stamp = tmp_path / ".native"
    stamp.touch()  # an earlier build's stamp: removed, so make tries again later
    assert native_build.c_compiler() is None
    assert native_build.main(["--stamp", str(stamp)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [f"{group}: not compiled: {native_build.NO_COMPILER}"
                     for group in native.GROUPS] + [
        "no engine compiled: they run from their sources (slower); install one (e.g. sudo "
        "apt-get install gcc) and run make native"]
    assert not any("compiled engines in" in line for line in lines)
    assert not stamp.exists()
    manifest = json.loads((tmp_path / "build" / native.MANIFEST).read_text())
    assert manifest["groups"] == {} and set(manifest["failed"]) == set(native.GROUPS)


def test_the_summary_says_all_some_or_none() -> None:
    root = Path("/b")
    assert native_build.summary({"a": "compiled", "b": "compiled"}, root)[-1] == (
        "compiled engines in /b")
    assert native_build.summary({"a": "compiled", "b": "not compiled: x"}, root)[-1] == (
        "compiled 1 of 2 engines in /b; the others run from their sources (slower)")
    assert native_build.summary({"a": "not compiled: x"}, root)[-1] == (
        "no engine compiled: they run from their sources (slower); see the reasons above, "
        "then run make native")
