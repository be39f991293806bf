"""entries.bonus: points a roll earned besides its box (a further Yahtzee)

Revision ID: 0004_entry_bonus
Revises: 0003_idempotency_keys
Create Date: 2026-11-29 17:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0004_entry_bonus'
down_revision = '0003_idempotency_keys'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('entries', schema=None) as batch_op:
        batch_op.add_column(sa.Column('bonus', sa.Integer(), nullable=False, server_default='0'))


def downgrade():
    with op.batch_alter_table('entries', schema=None) as batch_op:
        batch_op.drop_column('bonus')
