"""Runs the ```python blocks of docs/python.md in order, in one namespace, as a reader would."""
import os
import pathlib
import re

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"


def blocks():
    return re.findall(r"^```python\n(.*?)^```", DOC.read_text(), flags=re.S | re.M)


def test_docs_have_blocks():
    assert len(blocks()) >= 5


def test_tutorial_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CLFORGE_CACHE_DIR", os.environ.get("CLFORGE_CACHE_DIR", str(tmp_path)))
    ns = {"__name__": "tutorial"}
    for i, code in enumerate(blocks()):
        try:
            exec(compile(code, f"{DOC.name} block {i + 1}", "exec"), ns)
        except Exception as e:
            raise AssertionError(f"docs/python.md block {i + 1} failed: {e!r}\n{code}") from e
    out = capsys.readouterr().out
    assert "running on" in out and "CLF_ERR_INVALID_ARG" in out and "CLF_ERR_PARSE" in out


if __name__ == "__main__":   # without pytest (the GPU host): run the tutorial and say so
    namespace = {"__name__": "tutorial"}
    for n, block in enumerate(blocks()):
        exec(compile(block, f"{DOC.name} block {n + 1}", "exec"), namespace)
    print(f"docs/python.md: {len(blocks())} blocks ran")
