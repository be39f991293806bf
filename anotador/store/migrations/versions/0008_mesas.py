"""mesas: tables of regulars, their players and names, their games' results and running tallies; games.mesa_id

Revision ID: 0008_mesas
Revises: 0007_turn_rolls
Create Date: 2026-12-03 16:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0008_mesas'
down_revision = '0007_turn_rolls'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'mesas',
        sa.Column('id', sa.String(length=32), nullable=False),
        sa.Column('token_hash', sa.String(length=64), nullable=False),
        sa.Column('name', sa.String(length=160), nullable=False),
        sa.Column('timezone', sa.String(length=64), nullable=False),
        sa.Column('version', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('seen_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('creator', sa.String(length=32), nullable=True),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_mesas_seen_at', 'mesas', ['seen_at'])
    op.create_table(
        'mesa_players',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('mesa_id', sa.String(length=32), nullable=False),
        sa.Column('name', sa.String(length=160), nullable=False),
        sa.ForeignKeyConstraint(['mesa_id'], ['mesas.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_mesa_players_mesa_id', 'mesa_players', ['mesa_id'])
    op.create_table(
        'mesa_aliases',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('mesa_id', sa.String(length=32), nullable=False),
        sa.Column('name_key', sa.String(length=160), nullable=False),
        sa.Column('name', sa.String(length=160), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['mesa_id'], ['mesas.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['player_id'], ['mesa_players.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('mesa_id', 'name_key'),
    )
    op.create_index('ix_mesa_aliases_player_id', 'mesa_aliases', ['player_id'])
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.add_column(sa.Column('mesa_id', sa.String(length=32), nullable=True))
        batch_op.create_foreign_key('fk_games_mesa_id', 'mesas', ['mesa_id'], ['id'], ondelete='CASCADE')
        batch_op.create_index('ix_games_mesa_created', ['mesa_id', 'created_at', 'id'])
    op.create_table(
        'mesa_results',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('mesa_id', sa.String(length=32), nullable=False),
        sa.Column('game_id', sa.String(length=32), nullable=False),
        sa.Column('seat', sa.Integer(), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=False),
        sa.Column('variant', sa.String(length=32), nullable=False),
        sa.Column('rules_key', sa.String(length=64), nullable=False),
        sa.Column('played_on', sa.String(length=10), nullable=False),
        sa.Column('total', sa.Integer(), nullable=False),
        sa.Column('share', sa.Float(), nullable=False),
        sa.Column('won', sa.Boolean(), nullable=False),
        sa.Column('shared', sa.Boolean(), nullable=False),
        sa.Column('instant', sa.Boolean(), nullable=False),
        sa.Column('generalas', sa.Integer(), nullable=False),
        sa.Column('scratches', sa.Integer(), nullable=False),
        sa.Column('lost', sa.Float(), nullable=True),
        sa.Column('luck', sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(['game_id'], ['games.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['mesa_id'], ['mesas.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['player_id'], ['mesa_players.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('game_id', 'seat'),
    )
    op.create_index('ix_mesa_results_mesa_day', 'mesa_results', ['mesa_id', 'played_on'])
    op.create_index('ix_mesa_results_player_id', 'mesa_results', ['player_id'])
    op.create_index('ix_mesa_results_mesa_rules', 'mesa_results', ['mesa_id', 'rules_key'])
    op.create_table(
        'mesa_tallies',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('mesa_id', sa.String(length=32), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=False),
        sa.Column('variant', sa.String(length=32), nullable=False),
        sa.Column('rules_key', sa.String(length=64), nullable=False),
        sa.Column('month', sa.String(length=7), nullable=False),
        *(sa.Column(name, sa.Integer(), nullable=False) for name in (
            'games', 'leads', 'wins', 'shared')),
        sa.Column('share', sa.Float(), nullable=False),
        *(sa.Column(name, sa.Integer(), nullable=False) for name in (
            'total_sum', 'best', 'instant', 'generalas', 'scratches', 'judged')),
        sa.Column('lost_sum', sa.Float(), nullable=True),
        sa.Column('luck_sum', sa.Float(), nullable=True),
        sa.Column('first_day', sa.String(length=10), nullable=False),
        sa.Column('last_day', sa.String(length=10), nullable=False),
        sa.ForeignKeyConstraint(['mesa_id'], ['mesas.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['player_id'], ['mesa_players.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('mesa_id', 'player_id', 'variant', 'rules_key', 'month'),
    )
    op.create_index('ix_mesa_tallies_player_id', 'mesa_tallies', ['player_id'])


def downgrade():
    op.drop_table('mesa_tallies')
    op.drop_table('mesa_results')
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.drop_index('ix_games_mesa_created')
        batch_op.drop_constraint('fk_games_mesa_id', type_='foreignkey')
        batch_op.drop_column('mesa_id')
    op.drop_table('mesa_aliases')
    op.drop_table('mesa_players')
    op.drop_table('mesas')
