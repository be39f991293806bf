"""turns.rolls and corrections.rolls: a turn's throws and keeps, where the table recorded them

Revision ID: 0007_turn_rolls
Revises: 0006_creation_keys
Create Date: 2026-12-02 12:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0007_turn_rolls'
down_revision = '0006_creation_keys'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('turns', schema=None) as batch_op:
        batch_op.add_column(sa.Column('rolls', sa.JSON(), nullable=True))
    with op.batch_alter_table('corrections', schema=None) as batch_op:
        batch_op.add_column(sa.Column('rolls', sa.JSON(), nullable=True))


def downgrade():
    with op.batch_alter_table('corrections', schema=None) as batch_op:
        batch_op.drop_column('rolls')
    with op.batch_alter_table('turns', schema=None) as batch_op:
        batch_op.drop_column('rolls')
