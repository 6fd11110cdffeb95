"""Tests for the wire-format adapters."""
