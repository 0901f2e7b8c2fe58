"""Cyberpunk 2020 / X-Com: Gray Dawn tables, transcribed from the seed and docs/rules/cyberpunk2020.md. Data only.

Every number an event needs is copied into the event, so changing a table never changes a replayed history.
"""

from __future__ import annotations

# Game time, in seconds.
ROUND = 3
TURN = 30  # 10 rounds: "die at the end of the turn", every-turn death saves
HOUR = 3600
DAY = 86400

LOCATIONS = ("head", "torso", "left_arm", "right_arm", "left_leg", "right_leg")
LIMBS = ("left_arm", "right_arm", "left_leg", "right_leg")
EXTREMITIES = ("head", *LIMBS)  # what an explosion checks for protection

# The wound track: 40 points in levels of 4. (first point, last point, level, stun save penalty)
TRACK_MAX = 40
WOUND_LEVELS = (
    (1, 4, "light", 0),
    (5, 8, "serious", -1),
    (9, 12, "critical", -2),
    (13, 16, "mortal_0", -3),
    (17, 20, "mortal_1", -4),
    (21, 24, "mortal_2", -5),
    (25, 28, "mortal_3", -6),
    (29, 32, "mortal_4", -7),
    (33, 36, "mortal_5", -8),
    (37, 40, "mortal_6", -9),
)
MORTAL_CONDITION_OVER = 12  # "more than 12 points on the wound track"

# Body Type Modifier by Body: (lowest body, highest body or None, BTM).
BTM_BY_BODY = (
    (1, 2, 0),
    (3, 4, -1),
    (5, 7, -2),
    (8, 9, -3),
    (10, 10, -4),
    (11, None, -5),
)

# Hit location. Each face gives (location, what was hit). The seed's standard table swaps the sides against the
# CP2020 book; the seed wins.
STANDARD_D10 = {
    1: ("head", "head"),
    2: ("torso", "torso"),
    3: ("torso", "torso"),
    4: ("torso", "torso"),
    5: ("left_arm", "left arm"),
    6: ("right_arm", "right arm"),
    7: ("left_leg", "left leg"),
    8: ("left_leg", "left leg"),
    9: ("right_leg", "right leg"),
    10: ("right_leg", "right leg"),
}
# The d8 model: a d8 on the standard table (faces 9 and 10 never come up).
D8 = {face: STANDARD_D10[face] for face in range(1, 9)}
# The modified d10 model. Face 8 is a leg whose side is rolled on MODIFIED_SIDE_D10.
LEG_NEEDS_SIDE = "leg"
MODIFIED_D10 = {
    1: ("head", "head"),
    2: ("torso", "torso"),
    3: ("torso", "torso"),
    4: ("torso", "torso"),
    5: ("left_arm", "left arm"),
    6: ("right_arm", "right arm"),
    7: ("torso", "lower abdomen"),
    8: (LEG_NEEDS_SIDE, "groin/upper thigh"),
    9: ("left_leg", "left leg"),
    10: ("right_leg", "right leg"),
}
MODIFIED_SIDE_D10 = {face: ("left_leg" if face <= 5 else "right_leg") for face in range(1, 11)}
# A "center of mass" aimed shot: a d6 on the standard table.
CENTER_OF_MASS_D6 = {face: STANDARD_D10[face] for face in range(1, 7)}

HIT_LOCATION_MODELS = {
    "standard": (10, STANDARD_D10),
    "d8": (8, D8),
    "modified": (10, MODIFIED_D10),
}

# Damage application.
LIMB_TRACK_CAP = 8  # a limb hit puts at most 8 points on the track
CRIPPLING_DAMAGE = 8  # location damage (after BTM) that cripples a limb or the head
HEAD_TRACK_MULTIPLIER = 2
STUN_SPECIAL_EFFECT_OVER = 8  # stun damage over 8 in one attack: a special effect at the Ref's discretion
MINOR_WOUND_POINTS = 1
MINOR_WOUNDS_PENDING_MAX = 4  # "up to four 1-point wounds" heal within a day
MINOR_WOUND_HEALS_AFTER = DAY

# Explosions.
EXPLOSION_PROTECTING_SP = 8  # an extremity with at least this SP adds 1 to the torso SP
EXPLOSION_SP_PER_PROTECTED_EXTREMITY = 1
EXPLOSION_SECONDARY_PER_LIMB = 2
EXPLOSION_SECONDARY_HEAD = 4

# Difficulties (CP2020 skill rolls succeed when the total equals or beats the difficulty).
LIMB_STABILIZATION_DIFFICULTY = 15  # the seed: "skill roll target 15", first aid is enough
TREATMENT_DIFFICULTY = 15  # (house) healing care
TREATMENT_RETRY_DAYS = 1  # (house) a failed treatment may be retried after one game day
BONE_SETTING_DIFFICULTY = 15  # (house) setting a crippled limb's broken bones, first aid or medical tech
BONE_SETTING_RETRY = DAY  # (house) a failed setting may be tried again one game day later
BONE_MEND_WEEKS = 6  # (house, option bone_mend_weeks) set bones mend and the limb is usable again
WEEK = 7 * DAY

# Healing.
STUN_HEALS_EVERY = HOUR  # 1 point per hour
SECONDS_PER_POINT_BY_SKILL = {
    "first_aid": 2 * DAY,  # 0.5 point per day
    "medical_tech": DAY,  # 1 point per day
}
HEALING_RATE_BY_SKILL = {"first_aid": 0.5, "medical_tech": 1}
SKILLS = ("first_aid", "medical_tech")
SKILL_RANK = {None: 0, "first_aid": 1, "medical_tech": 2}
