"""Extensions, created unbound and attached to an app in ``create_app``."""

from pathlib import Path

from flask_compress import Compress
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from sqlalchemy import MetaData

# Named constraints, so migrations can refer to them on every database.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# expire_on_commit off: a write answers with the state it just wrote, without
# reading every row back after the commit.
db = SQLAlchemy(metadata=MetaData(naming_convention=NAMING), session_options={"expire_on_commit": False})
migrate = Migrate()
#: Where the schema's migrations live: Flask-Migrate's folder, and the head /readyz compares with.
MIGRATIONS = Path(__file__).resolve().parent / "store" / "migrations"
compress = Compress()
