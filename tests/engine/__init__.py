"""Tests of the compaction engine."""
