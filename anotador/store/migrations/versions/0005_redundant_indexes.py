"""drop indexes on game_id that a unique constraint already leads with

Every write of a turn inserted into ix_turns_game_id and ix_entries_game_id
besides the unique indexes (game_id, number) and (game_id, player, box),
which answer every lookup by game_id (and the foreign keys' cascades) as well.
The same holds for players, roll_offs and idempotency_keys.

Revision ID: 0005_redundant_indexes
Revises: 0004_entry_bonus
Create Date: 2026-12-01 00:15:00
"""
from alembic import op


revision = '0005_redundant_indexes'
down_revision = '0004_entry_bonus'
branch_labels = None
depends_on = None

#: table → the index on game_id alone, redundant beside the table's unique (game_id, ...) constraint
REDUNDANT = {
    'players': 'ix_players_game_id',
    'roll_offs': 'ix_roll_offs_game_id',
    'turns': 'ix_turns_game_id',
    'entries': 'ix_entries_game_id',
    'idempotency_keys': 'ix_idempotency_keys_game_id',
}


def upgrade():
    for table, index in REDUNDANT.items():
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_index(index)


def downgrade():
    for table, index in REDUNDANT.items():
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.create_index(index, ['game_id'], unique=False)
