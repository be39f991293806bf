"""change notices: on PostgreSQL, a write that moves a game's or table's version notifies every server

Revision ID: 0009_change_notices
Revises: 0008_mesas
Create Date: 2026-12-06 17:00:00

The trigger sends ``g:<id>:<version>`` (``m:`` for a table of regulars) on
channel ``anotador_changes`` (anotador/live/feeds.py listens). PostgreSQL
delivers it when the write commits, and never when it rolls back. SQLite has
nothing to add: its servers share one file and watch it.
"""
from alembic import op


revision = '0009_change_notices'
down_revision = '0008_mesas'
branch_labels = None
depends_on = None

TABLES = {"games": "g", "mesas": "m"}


def upgrade():
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("""
        CREATE FUNCTION anotador_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('anotador_changes', TG_ARGV[0] || ':' || NEW.id || ':' || NEW.version);
            RETURN NULL;
        END $$
    """)
    for table, prefix in TABLES.items():
        op.execute(f"CREATE TRIGGER {table}_changed AFTER UPDATE OF version ON {table} FOR EACH ROW "
                   f"WHEN (NEW.version IS DISTINCT FROM OLD.version) EXECUTE FUNCTION anotador_changed('{prefix}')")


def downgrade():
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in TABLES:
        op.execute(f"DROP TRIGGER IF EXISTS {table}_changed ON {table}")
    op.execute("DROP FUNCTION IF EXISTS anotador_changed()")
