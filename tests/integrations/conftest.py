"""Integration tests never touch the network: LiteLLM would fetch its model cost map from
GitHub when imported; the local copy it ships is what the tests use."""

from __future__ import annotations

import os

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
