"""Shared fixtures: the app, its test client, and rule-set factories."""

from __future__ import annotations

import pytest

from service import create_app
from service.rules import find_variant


@pytest.fixture
def app(tmp_path):
    """An app on a throwaway SQLite file."""
    return create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'test.sqlite'}"})


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def rules():
    """Factory: ``rules("generala", served_bonus=10)`` → a frozen rule set."""

    def make(variant_id: str, **overrides):
        return find_variant(variant_id).rules(overrides)

    return make


@pytest.fixture
def score(client):
    """Factory: POST /api/v1/score with a JSON body, return the response."""

    def post(**body):
        return client.post("/api/v1/score", json=body)

    return post


def points_of(result) -> dict[str, int]:
    """Box → points of a Score's options."""
    return {o.category: o.points for o in result.options}
