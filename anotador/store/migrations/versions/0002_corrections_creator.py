"""corrections as rows; games.creator for the per-address rate limit

Revision ID: 0002_corrections_creator
Revises: 0001_games
Create Date: 2026-11-29 15:00:00

A turn's corrections were a JSON list rewritten whole on every correction
(2,000 corrections of one turn: a 298 KB history and PATCHes slowing from
21 to 50 ms). They move to a table with one row per correction; existing
lists are copied over in order.
"""
from datetime import datetime, timezone

from alembic import op
import sqlalchemy as sa


revision = '0002_corrections_creator'
down_revision = '0001_games'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('corrections',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.String(length=32), nullable=False),
    sa.Column('turn_id', sa.Integer(), nullable=False),
    sa.Column('dice', sa.JSON(), nullable=True),
    sa.Column('served', sa.Boolean(), nullable=False),
    sa.Column('boxes', sa.JSON(), nullable=False),
    sa.Column('recorded_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], name=op.f('fk_corrections_game_id_games'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['turn_id'], ['turns.id'], name=op.f('fk_corrections_turn_id_turns'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_corrections'))
    )
    with op.batch_alter_table('corrections', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_corrections_game_id'), ['game_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_corrections_turn_id'), ['turn_id'], unique=False)

    # Copy each turn's JSON list into rows, oldest first.
    conn = op.get_bind()
    turns = sa.table('turns', sa.column('id', sa.Integer), sa.column('game_id', sa.String),
                     sa.column('corrections', sa.JSON))
    corrections = sa.table('corrections', sa.column('game_id', sa.String), sa.column('turn_id', sa.Integer),
                           sa.column('dice', sa.JSON), sa.column('served', sa.Boolean),
                           sa.column('boxes', sa.JSON), sa.column('recorded_at', sa.DateTime(timezone=True)))
    rows = []
    for turn_id, game_id, history in conn.execute(sa.select(turns.c.id, turns.c.game_id, turns.c.corrections)):
        for old in history or []:
            rows.append({"game_id": game_id, "turn_id": turn_id, "dice": old.get("dice"),
                         "served": bool(old.get("served")), "boxes": old.get("boxes") or [],
                         "recorded_at": datetime.fromisoformat(old["recorded_at"].replace("Z", "+00:00"))})
    if rows:
        op.bulk_insert(corrections, rows)

    with op.batch_alter_table('turns', schema=None) as batch_op:
        batch_op.drop_column('corrections')

    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.add_column(sa.Column('creator', sa.String(length=32), nullable=True))
        batch_op.create_index('ix_games_creator_created_at', ['creator', 'created_at'], unique=False)
        batch_op.create_index('ix_games_updated_at', ['updated_at'], unique=False)


def downgrade():
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.drop_index('ix_games_updated_at')
        batch_op.drop_index('ix_games_creator_created_at')
        batch_op.drop_column('creator')

    with op.batch_alter_table('turns', schema=None) as batch_op:
        batch_op.add_column(sa.Column('corrections', sa.JSON(), nullable=False, server_default='[]'))

    conn = op.get_bind()
    turns = sa.table('turns', sa.column('id', sa.Integer), sa.column('corrections', sa.JSON))
    corrections = sa.table('corrections', sa.column('id', sa.Integer), sa.column('turn_id', sa.Integer),
                           sa.column('dice', sa.JSON), sa.column('served', sa.Boolean),
                           sa.column('boxes', sa.JSON), sa.column('recorded_at', sa.DateTime(timezone=True)))
    history = {}
    for row in conn.execute(sa.select(corrections).order_by(corrections.c.id)):
        when = row.recorded_at if row.recorded_at.tzinfo else row.recorded_at.replace(tzinfo=timezone.utc)
        at = when.isoformat().replace("+00:00", "Z")
        history.setdefault(row.turn_id, []).append(
            {"dice": row.dice, "served": row.served, "boxes": row.boxes, "recorded_at": at})
    for turn_id, items in history.items():
        conn.execute(turns.update().where(turns.c.id == turn_id).values(corrections=items))

    with op.batch_alter_table('corrections', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_corrections_turn_id'))
        batch_op.drop_index(batch_op.f('ix_corrections_game_id'))
    op.drop_table('corrections')
