"""idempotency keys: the stored answer to each write sent with one

Revision ID: 0003_idempotency_keys
Revises: 0002_corrections_creator
Create Date: 2026-11-29 16:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0003_idempotency_keys'
down_revision = '0002_corrections_creator'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('idempotency_keys',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.String(length=32), nullable=False),
    sa.Column('key', sa.String(length=255), nullable=False),
    sa.Column('fingerprint', sa.String(length=64), nullable=False),
    sa.Column('status', sa.Integer(), nullable=False),
    sa.Column('body', sa.Text(), nullable=False),
    sa.Column('etag', sa.String(length=40), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], name=op.f('fk_idempotency_keys_game_id_games'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_idempotency_keys')),
    sa.UniqueConstraint('game_id', 'key', name=op.f('uq_idempotency_keys_game_id_key'))
    )
    with op.batch_alter_table('idempotency_keys', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_idempotency_keys_game_id'), ['game_id'], unique=False)


def downgrade():
    with op.batch_alter_table('idempotency_keys', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_idempotency_keys_game_id'))
    op.drop_table('idempotency_keys')
