"""A frozen rule set: one variant's sheet with every option resolved.

This is where the rules that look beyond one group of dice live: which boxes
are free, when ``double_generala`` opens, when a served generala wins the game
on the spot, how ten dice split into two boxes, and what a sheet adds up to.
Scoring one group in one box is :meth:`Box.points`; everything here calls it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations
from typing import Any, Protocol

from .boxes import FIXED, SUM, Box, Counts, count
from .errors import InvalidDiceError, InvalidGroupsError, InvalidOptionError, InvalidSheetError, NoFreeBoxError, UnknownBoxError
from .names import BOX_NAMES
from .joker import YahtzeeJoker
from .options import Options
from .spec import (GROUP, THREE_AFTER, Assignment, BoxSpec, Option, Placement, Score, SectionBonus, expand,
                   groups_of, pattern)


class Variant(Protocol):
    """What a rule set knows of the variant it was built from (:class:`.variants.Variant`, which builds rule
    sets: named here by its shape, so neither module imports the other's)."""

    id: str
    names: Mapping[str, str]
    description: Mapping[str, str]
    boxes: tuple[BoxSpec, ...]
    defaults: Options
    dice: int
    boxes_per_turn: int
    applicable: frozenset[str]
    double_generala_served_bonus: bool
    big_general: bool
    min_players: int
    family: str
    bonuses: tuple[SectionBonus, ...]
    box_names: Mapping[str, Mapping[str, str]]


@dataclass(frozen=True, eq=False)
class RuleSet(YahtzeeJoker):
    """Every rule of one game, frozen: built once, shared, never changed."""

    variant: "Variant"
    options: Options
    boxes: tuple[Box, ...]
    bonuses: tuple[SectionBonus, ...] = ()
    _rows: dict = field(default_factory=dict, repr=False)

    # -- construction -----------------------------------------------------

    @classmethod
    def build(cls, variant: "Variant", options: Options) -> "RuleSet":
        """Resolve ``variant``'s box specs with ``options`` into boxes."""
        specs: list[BoxSpec] = list(variant.boxes)
        extra_values: dict[str, int] = {}
        if options.three_of_a_kind is not None:
            fixed = options.three_of_a_kind != "sum"
            at = [s.id for s in specs].index(THREE_AFTER) + 1
            specs.insert(at, BoxSpec("three", "three", FIXED if fixed else SUM, served_bonus=fixed))
            if fixed:
                extra_values["three"] = options.three_of_a_kind  # type: ignore[assignment]
        if options.double_generala is not None:
            at = next(i for i, s in enumerate(specs) if s.role == "generala") + 1
            specs.insert(
                at,
                BoxSpec(
                    "double_generala", "five", FIXED,
                    served_bonus=variant.double_generala_served_bonus, role="double_generala",
                ),
            )
            extra_values["double_generala"] = options.double_generala

        points = dict(options.points)
        fixed_ids = {s.id for s in specs if s.kind == FIXED} - set(extra_values)
        for box_id in points:
            if box_id in extra_values or box_id in ("three", "double_generala"):
                opt = "three_of_a_kind" if box_id == "three" else box_id
                raise InvalidOptionError(f"Set the points of {box_id} with the option {opt}.", f"points.{box_id}")
            if box_id not in fixed_ids:
                if any(s.id == box_id for s in specs):
                    raise InvalidOptionError(
                        f"{box_id} scores by its dice and has no fixed value to set.", f"points.{box_id}"
                    )
                raise UnknownBoxError(
                    f"points names {box_id!r}, which is not a box of this sheet.", f"points.{box_id}"
                )

        bonus = options.served_bonus or 0
        boxes = []
        for s in specs:
            value = served_value = None
            if s.kind == FIXED:
                value = extra_values.get(s.id, points.get(s.id))
                served_value = value + bonus if s.served_bonus else value
                if s.role == "generala" and options.served_generala == "points":
                    served_value = options.served_generala_points
                elif s.role == "generala" and variant.big_general and (options.served_generala or "").startswith("win"):
                    # The Big General: served, five of a kind wins the game
                    # and is not a Small General. Whenever this box is free,
                    # every win_* policy lets a served five of a kind win, so
                    # a served roll never qualifies for the line itself.
                    served_value = 0
            boxes.append(Box(s.id, pattern(s.pattern, options), s.kind, s.face, value, served_value, s.role))
        return cls(variant, options, tuple(boxes), variant.bonuses)

    def spec(self) -> dict[str, Any]:
        """Return ``{"base": id, <option>: value}``: what rebuilds this rule set.

        Every applicable option is spelled out, so a stored game keeps its
        rules even if a variant's defaults change later.
        """
        options = self.options.as_dict()
        return {"base": self.variant.id, **{k: options[k] for k in options if k in self.variant.applicable}}

    # -- shape of the sheet -----------------------------------------------

    @property
    def dice(self) -> int:
        """How many dice a turn rolls."""
        return self.variant.dice

    @property
    def boxes_per_turn(self) -> int:
        """How many boxes one turn fills (two in ``double-cameroon``)."""
        return self.variant.boxes_per_turn

    @property
    def rounds(self) -> int:
        """How many turns each player takes in a game that runs to the end."""
        return len(self.boxes) // self.boxes_per_turn

    @cached_property
    def index(self) -> dict[str, int]:
        """Box id → position in sheet order."""
        return {b.id: i for i, b in enumerate(self.boxes)}

    def box(self, box_id: str) -> Box:
        """Return the box with this id, or raise UnknownBoxError."""
        try:
            return self.boxes[self.index[box_id]]
        except (KeyError, TypeError):
            raise UnknownBoxError(f"This sheet has no box {box_id!r}.", None) from None

    @cached_property
    def served_matters(self) -> bool:
        """Whether a served roll can score or win differently (never in the Yahtzee family)."""
        return any(b.served_value != b.value for b in self.boxes) or (
            self._generala is not None and (self.options.served_generala or "").startswith("win"))

    @cached_property
    def _generala(self) -> str | None:
        return next((b.id for b in self.boxes if b.role == "generala"), None)

    @cached_property
    def _double(self) -> int | None:
        return next((i for i, b in enumerate(self.boxes) if b.role == "double_generala"), None)

    @cached_property
    def possible_points(self) -> dict[str, frozenset[int]]:
        """Box id → every value that box can ever hold (0 = scratched)."""
        groups = groups_of(GROUP)
        return {
            b.id: frozenset({0} | {b.points(c, s) for c in groups for s in (False, True)})
            for b in self.boxes
        }

    def max_points(self, box_id: str) -> int:
        """Return the most this box can score."""
        return max(self.possible_points[self.box(box_id).id])

    # -- checking input ---------------------------------------------------

    def check_dice(self, dice: Any, n: int, path: str) -> Counts:
        """Return the counts of ``n`` dice, or raise InvalidDiceError naming ``path``."""
        if not isinstance(dice, (list, tuple)):
            raise InvalidDiceError(f"{path} must be a list of {n} dice.", path)
        if len(dice) != n:
            raise InvalidDiceError(f"{path} must hold exactly {n} dice, not {len(dice)}.", path)
        for i, d in enumerate(dice):
            # type() rather than isinstance(): True is an int to Python, not a die.
            if type(d) is not int or not 1 <= d <= 6:
                raise InvalidDiceError(f"A die is a whole number from 1 to 6, not {d!r}.", f"{path}.{i}")
        return count(dice)

    def check_sheet(self, sheet: Mapping[str, Any] | None) -> Mapping[str, int]:
        """Return ``sheet`` checked: known boxes, values each box can hold.

        A sheet maps box id → points recorded (0 = scratched); absent boxes,
        and boxes mapped to None (as a game's sheet shows a free one), are
        free. Refuses a sheet with fewer free boxes than a turn fills.
        """
        if sheet is None:
            sheet = {}
        if type(sheet) is not dict and not isinstance(sheet, Mapping):  # a dict passes without asking the abc
            raise InvalidSheetError("sheet must map box ids to recorded points.", "sheet")
        # every value each box can hold costs a new rule set milliseconds: only worked out for a sheet to check
        possible = self.possible_points if sheet else {}
        closed = {}
        for box_id, pts in sheet.items():
            if box_id not in possible:
                raise UnknownBoxError(f"This sheet has no box {box_id!r}.", f"sheet.{box_id}")
            if pts is None:
                continue  # free
            closed[box_id] = pts
            if type(pts) is not int:
                raise InvalidSheetError(f"{box_id} must hold a whole number of points.", f"sheet.{box_id}")
            if pts not in possible[box_id]:
                allowed = sorted(possible[box_id])
                shown = ", ".join(map(str, allowed)) if len(allowed) <= 12 else f"0 to {allowed[-1]}"
                raise InvalidSheetError(f"{box_id} can never hold {pts} points (it holds {shown}).", f"sheet.{box_id}")
        sheet = closed
        if self._double is not None and sheet.get(self.boxes[self._double].id):
            if not self._double_open(sheet):
                raise InvalidSheetError(
                    f"double_generala cannot hold points while {self._generala} is "
                    + ("open." if self.options.double_generala_after == "closed" else "not scored."),
                    "sheet.double_generala",
                )
        free = len(self.boxes) - len(sheet)
        if free < self.boxes_per_turn:
            raise NoFreeBoxError(
                "The sheet has no free box left." if free == 0
                else f"A turn fills {self.boxes_per_turn} boxes and the sheet has {free} free.",
                "sheet",
            )
        if len(sheet) % self.boxes_per_turn:
            raise InvalidSheetError(
                f"A turn fills {self.boxes_per_turn} boxes, so a sheet cannot have {len(sheet)} closed.", "sheet"
            )
        return sheet  # type: ignore[return-value]

    # -- rules that look at the sheet -------------------------------------

    def _double_open(self, sheet: Mapping[str, int]) -> bool:
        held = sheet.get(self._generala)  # type: ignore[arg-type]
        if self.options.double_generala_after == "scored":
            return bool(held)
        return held is not None

    def wins_on_the_spot(self, counts: Counts, served: bool, sheet: Mapping[str, int]) -> bool:
        """Return whether this group wins the game at once (a served generala)."""
        if not served or self._generala is None or max(counts) < GROUP:
            return False
        policy = self.options.served_generala
        held = sheet.get(self._generala)
        if policy == "win_always":
            return True
        if policy == "win_if_open":
            return held is None
        if policy == "win_unless_scratched":
            return held != 0
        return False

    def _row(self, counts: Counts, served: bool) -> tuple[int, ...]:
        # Points of this group in every box, ignoring the sheet. Cached: a
        # rule set sees at most 252 groups x 2, so the cache stays small.
        key = (counts, served)
        row = self._rows.get(key)
        if row is None:
            row = self._rows[key] = tuple(b.points(counts, served) for b in self.boxes)
        return row

    def points_on(self, counts: Counts, served: bool, sheet: Mapping[str, int]) -> Sequence[int]:
        """Points of a group in every box, given the sheet.

        A closed-off double generala scores 0; a further Yahtzee is a joker
        (see :meth:`joker`).
        """
        row = self._row(counts, served)
        if self._double is not None and row[self._double] and not self._double_open(sheet):
            changed = list(row)  # the cached row is shared: change a copy
            changed[self._double] = 0
            return changed
        joker = self.joker(counts, sheet)
        if joker is not None:
            return joker[0]
        return row

    def watched(self, counts: Counts) -> tuple[str, ...]:
        """The boxes whose state (free, 0, points) this group's score reads, besides which boxes are free.

        Every rule above that looks at the sheet reads one of these: the
        generala box (double generala, a served generala), the yahtzee box
        and the matching upper box (a joker). The offline table
        (:mod:`.table`) has one case per state of them.
        """
        if max(counts) < GROUP:
            return ()
        if self._yahtzee is not None:
            return (self.boxes[self._yahtzee].id, self.boxes[self._upper_of(counts)].id)
        if self._generala is not None:
            return (self._generala,)
        return ()

    @cached_property
    def _ids(self) -> tuple[str, ...]:
        return tuple(b.id for b in self.boxes)

    def _free(self, sheet: Mapping[str, int]) -> list[int]:
        return [i for i, box_id in enumerate(self._ids) if box_id not in sheet]

    def judge(self, counts: Counts, served: bool, sheet: Mapping[str, int]
              ) -> tuple[Sequence[int], tuple[tuple[int, ...], ...] | None, bool, int]:
        """A group on a sheet before the free boxes are picked: its points in every box, the order of
        groups it must go in (a forced joker; None: any free box), whether it wins, its bonus."""
        joker = self.joker(counts, sheet) if self._yahtzee is not None else None
        if joker is None:
            row, order, bonus = self.points_on(counts, served, sheet), None, 0
        else:
            row, order, bonus = joker
        return row, order, self.wins_on_the_spot(counts, served, sheet), bonus

    def score_counts(self, counts: Counts, served: bool, sheet: Mapping[str, int]) -> Score:
        """Score a group given as counts on a checked sheet (see :meth:`score`)."""
        return self.place(self.judge(counts, served, sheet), self._free(sheet))

    def place(self, judgement: tuple[Sequence[int], tuple[tuple[int, ...], ...] | None, bool, int],
              free: Sequence[int]) -> Score:
        """A group's :meth:`judge`-ment on a sheet whose free boxes are ``free`` (indices): its score.

        The judgement reads only the :meth:`watched` boxes of the sheet, so a
        caller scoring one group on many sheets (the solver) may judge once
        per state of those and place on each sheet.
        """
        ids = self._ids
        row, order, wins, bonus = judgement
        if order is not None:
            allowed = self._first_free(order, free)
            free = [i for i in free if i in allowed]
        ranked = sorted((-row[i], i) for i in free if row[i] > 0)
        return Score(tuple(Option(ids[i], -neg) for neg, i in ranked), tuple(ids[i] for i in free), wins, bonus)

    # -- questions callers ask --------------------------------------------

    def score(self, dice: Any, served: bool = False, sheet: Mapping[str, Any] | None = None) -> Score:
        """Return the legal boxes and points for one roll on ``sheet``."""
        if self.boxes_per_turn != 1:
            raise InvalidDiceError(
                f"{self.variant.id} fills {self.boxes_per_turn} boxes a turn: "
                "ask for assignments, or for the groups the player chose.", "dice",
            )
        counts = self.check_dice(dice, self.dice, "dice")
        return self.score_counts(counts, bool(served), self.check_sheet(sheet))

    def score_groups(
        self, dice: Any, groups: Any, served: bool = False, sheet: Mapping[str, Any] | None = None
    ) -> tuple[Score, ...]:
        """Return a :class:`Score` for each group of a split the player chose."""
        counts = self.check_dice(dice, self.dice, "dice")
        n = self.boxes_per_turn
        if not isinstance(groups, (list, tuple)) or len(groups) != n:
            raise InvalidGroupsError(f"groups must be {n} groups of {GROUP} dice.", "groups")
        group_counts = [self.check_dice(g, GROUP, f"groups.{i}") for i, g in enumerate(groups)]
        if tuple(map(sum, zip(*group_counts))) != counts:
            raise InvalidGroupsError("The groups must hold exactly the dice rolled.", "groups")
        sheet = self.check_sheet(sheet)
        return tuple(self.score_counts(c, bool(served), sheet) for c in group_counts)

    def assignments(
        self, dice: Any, served: bool = False, sheet: Mapping[str, Any] | None = None, limit: int = 10
    ) -> tuple[Assignment, ...]:
        """Return the best ways to put a two-box roll in two different free boxes.

        One assignment per pair of free boxes, with the split of the dice that
        scores most there; best total first, ties in sheet order. A group that
        fits neither box of the pair is a scratch (0 points).
        """
        if self.boxes_per_turn != 2:
            raise InvalidDiceError(f"{self.variant.id} fills one box a turn; ask for its score.", "dice")
        counts = self.check_dice(dice, self.dice, "dice")
        sheet = self.check_sheet(sheet)
        free = self._free(sheet)
        best: dict[tuple[int, int], tuple[int, Counts, Counts]] = {}
        for g1 in groups_of(GROUP, within=counts):
            g2: Counts = tuple(a - b for a, b in zip(counts, g1))  # type: ignore[assignment]
            r1 = self.points_on(g1, served, sheet)
            r2 = self.points_on(g2, served, sheet)
            for i, j in combinations(free, 2):
                for pts, a, b in ((r1[i] + r2[j], g1, g2), (r2[i] + r1[j], g2, g1)):
                    if (i, j) not in best or pts > best[(i, j)][0]:
                        best[(i, j)] = (pts, a, b)
        ranked = sorted(best.items(), key=lambda kv: (-kv[1][0], kv[0]))[:limit]
        return tuple(
            Assignment(
                pts,
                (
                    Placement(self.boxes[i].id, expand(a), self.points_on(a, served, sheet)[i]),
                    Placement(self.boxes[j].id, expand(b), self.points_on(b, served, sheet)[j]),
                ),
            )
            for (i, j), (pts, a, b) in ranked
        )

    # -- what a solver may rely on ------------------------------------------

    def row(self, counts: Counts, served: bool) -> tuple[int, ...]:
        """A group's points in every box, ignoring the sheet (see :meth:`depends_on_sheet`)."""
        return self._row(counts, served)

    def depends_on_sheet(self, counts: Counts) -> bool:
        """Whether this group's points, boxes or instant win may depend on more than which boxes are free.

        Only five of a kind may: a double generala that opens after the
        generala, a served generala that wins, a Yahtzee joker and its bonus.
        Every other group scores its plain row in any free box.
        """
        return bool(self.watched(counts))

    @cached_property
    def held_matters(self) -> tuple[int, ...]:
        """The boxes whose holding points rather than 0 changes how later rolls score.

        The generala, when the double opens only once it scores or a served
        generala wins unless it was scratched; the Yahtzee box, whose 50 earns
        the bonus of further Yahtzees. Any other box only counts as closed.
        """
        out = []
        if self._generala is not None and (
                (self._double is not None and self.options.double_generala_after == "scored")
                or self.options.served_generala == "win_unless_scratched"):
            out.append(self.index[self._generala])
        if self._yahtzee is not None and self.options.yahtzee_bonus:
            out.append(self._yahtzee)
        return tuple(sorted(out))

    def total(self, sheet: Mapping[str, Any], extra: int = 0) -> int:
        """Return the total of a sheet, section bonuses included, plus ``extra`` (bonuses of rolls)."""
        sheet = {k: v for k, v in sheet.items() if v is not None}
        return sum(sheet.values()) + sum(self.section_bonuses(sheet).values()) + extra

    def subtotals(self, sheet: Mapping[str, Any]) -> dict[str, int]:
        """Each bonus section's subtotal so far: {"upper_bonus": 45}."""
        return {b.id: sum(sheet.get(box) or 0 for box in b.boxes) for b in self.bonuses}

    def section_bonuses(self, sheet: Mapping[str, Any]) -> dict[str, int]:
        """Each bonus section's bonus: its points once the subtotal reaches the threshold, else 0."""
        subtotal = self.subtotals(sheet)
        return {b.id: b.points if subtotal[b.id] >= b.threshold else 0 for b in self.bonuses}

    def names_of(self, box_id: str) -> Mapping[str, str]:
        """A box's name in each language, as this variant calls it."""
        return self.variant.box_names.get(box_id) or BOX_NAMES[box_id]

    def generalas(self, sheet: Mapping[str, Any]) -> int:
        """Return how many generala lines hold a non-zero score (a tie-break)."""
        return sum(1 for b in self.boxes if b.role in ("generala", "double_generala") and sheet.get(b.id))

    def generalas_rolled(self, sheet: Mapping[str, Any], bonus: int = 0) -> int:
        """Return how many generalas (Yahtzees) a finished sheet shows were rolled: the generala lines that
        hold points, and each further one that earned the bonus for it (``bonus``: those points)."""
        extra = bonus // self.options.yahtzee_bonus if self.options.yahtzee_bonus else 0
        return sum(1 for b in self._five_of_a_kind_lines if sheet.get(b.id)) + extra

    @cached_property
    def _five_of_a_kind_lines(self) -> tuple[Box, ...]:
        """The boxes only five of a kind goes in (generala, double generala, Yahtzee, Yatzy...)."""
        five, four = (5, 0, 0, 0, 0, 0), (4, 1, 0, 0, 0, 0)
        return tuple(b for b in self.boxes if b.kind == FIXED and b.pattern.matches(five)
                     and not b.pattern.matches(four))

    @cached_property
    def digest(self) -> str:
        """A short name for this set of rules, the same wherever and whenever it is played: its spec, hashed."""
        canonical = json.dumps(self.spec(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]
