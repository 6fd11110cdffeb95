"""Integration tests never touch the network: LiteLLM would fetch its model cost map from
GitHub when imported; the local copy it ships is what the tests use.

The frameworks' async paths leave event loops (and their self-pipe sockets) to the garbage
collector: an agent run under `asyncio.run` can make one in an executor thread and never
close it. Each test here collects what it left before it ends, with the ResourceWarning
that garbage raises ignored, so the warning cannot fail whichever test happens to collect
next (a full run saw it fail a LangGraph test that had made no loop).
"""

from __future__ import annotations

import gc
import os
import warnings
from collections.abc import Iterator

import pytest

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"


@pytest.fixture(autouse=True)
def _frameworks_garbage_collected() -> Iterator[None]:
    yield
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()
