"""WSGI entry point: ``gunicorn wsgi:app``."""

from service import create_app

app = create_app()
