"""WSGI entry point: ``gunicorn wsgi:app``."""

from anotador import create_app

app = create_app()
