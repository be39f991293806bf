"""creation keys: the sealed answer to a game created with an Idempotency-Key

Revision ID: 0006_creation_keys
Revises: 0005_redundant_indexes
Create Date: 2026-12-02 00:50:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0006_creation_keys'
down_revision = '0005_redundant_indexes'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'creation_keys',
        sa.Column('key', sa.String(length=64), nullable=False),
        sa.Column('game_id', sa.String(length=32), nullable=False),
        sa.Column('fingerprint', sa.String(length=64), nullable=False),
        sa.Column('sealed', sa.Text(), nullable=False),
        sa.Column('etag', sa.String(length=40), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['game_id'], ['games.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('key'),
    )
    with op.batch_alter_table('creation_keys', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_creation_keys_game_id'), ['game_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_creation_keys_created_at'), ['created_at'], unique=False)


def downgrade():
    with op.batch_alter_table('creation_keys', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_creation_keys_created_at'))
        batch_op.drop_index(batch_op.f('ix_creation_keys_game_id'))
    op.drop_table('creation_keys')
