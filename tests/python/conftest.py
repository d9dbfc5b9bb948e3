"""Shared fixtures: one context per OpenCL device present ($CLFORGE_TEST_DEVICES="P:D,P:D" limits them), a
private cache directory per session, and a seeded random generator."""
import os

import numpy as np
import pytest

import clforge


def _selectors():
    env = os.environ.get("CLFORGE_TEST_DEVICES")
    if env:
        return [s for s in env.split(",") if s]
    return [d.selector for d in clforge.devices()]


@pytest.fixture(scope="session", autouse=True)
def _cache_dir(tmp_path_factory):
    if "CLFORGE_CACHE_DIR" not in os.environ:
        os.environ["CLFORGE_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))


@pytest.fixture(scope="session", params=_selectors())
def ctx(request, _cache_dir):
    c = clforge.Context(device=request.param)
    yield c
    c.close()


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
