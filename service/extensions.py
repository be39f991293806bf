"""Extensions, created unbound and attached to an app in ``create_app``."""

from flask_sqlalchemy import SQLAlchemy

db = SQLAlchemy()
