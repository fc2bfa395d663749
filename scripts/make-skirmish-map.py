#!/usr/bin/env python3
"""Writes profiles/maps/skirmish_field.json, the skirmish profile's polygon map.

A 2.4 × 1.8 km field: a river from the north edge to y = 450 with two
bridges (ids 1 and 2) and a way round its southern end; two east–west roads
over the bridges, two north–south roads and a southern road round the river's
end, joined where they share a vertex; three towns of buildings at road
junctions; forests; swamps. Seeded, so the file is reproducible:

    scripts/make-skirmish-map.py > profiles/maps/skirmish_field.json

The format is the polygon map JSON of kernel/src/nav/polygon/json.rs.
"""

import json
import math
import random

WIDTH, HEIGHT = 2400.0, 1800.0
RIVER_HALF_WIDTH = 25.0
RIVER_END_Y = 450.0
BRIDGE_YS = (1350.0, 800.0)
BRIDGE_HALF_SPAN = 45.0
SWAMP_COST = 3.0

rng = random.Random(21)


def river_x(y):
    """The river's centre line."""
    return 1200.0 + 50.0 * math.sin(y / 230.0)


def river():
    ys = [HEIGHT + 10.0 - 50.0 * k for k in range(int((HEIGHT + 10.0 - RIVER_END_Y) / 50.0) + 1)]
    if ys[-1] > RIVER_END_Y:
        ys.append(RIVER_END_Y)
    west = [(river_x(y) - RIVER_HALF_WIDTH, y) for y in ys]
    east = [(river_x(y) + RIVER_HALF_WIDTH, y) for y in reversed(ys)]
    return west + east


def bridge_ends(y):
    x = river_x(y)
    return (x - BRIDGE_HALF_SPAN, y), (x + BRIDGE_HALF_SPAN, y), (x, y)


def roads():
    (w1, e1, _), (w2, e2, _) = (bridge_ends(y) for y in BRIDGE_YS)
    return [
        [(0, 1350), (500, 1350), (900, 1330), w1],
        [e1, (1600, 1370), (1900, 1350), (2400, 1350)],
        [(0, 800), (500, 800), (900, 820), w2],
        [e2, (1500, 780), (1900, 800), (2400, 800)],
        [(500, 0), (520, 400), (500, 800), (480, 1100), (500, 1350), (500, 1800)],
        [(1900, 0), (1880, 400), (1900, 800), (1920, 1100), (1900, 1350), (1900, 1800)],
        [(520, 400), (1200, 300), (1880, 400)],
    ]


def segment_distance(p, a, b):
    ax, ay = a
    bx, by = b
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / length2))
    return math.hypot(p[0] - ax - t * dx, p[1] - ay - t * dy)


def road_distance(p, road_lines):
    return min(segment_distance(p, a, b) for line in road_lines for a, b in zip(line, line[1:]))


def river_distance(p):
    """Distance from the river's centre line (its southern end counts)."""
    y = max(RIVER_END_Y, min(HEIGHT, p[1]))
    return math.hypot(p[0] - river_x(y), p[1] - y)


def blob(centre, radius, corners):
    """An irregular convex-ish polygon round `centre`, closed."""
    ring = []
    for k in range(corners):
        angle = 2.0 * math.pi * (k + rng.uniform(-0.25, 0.25)) / corners
        r = radius * rng.uniform(0.75, 1.0)
        ring.append((centre[0] + r * math.cos(angle), centre[1] + r * math.sin(angle)))
    return ring


def swamps(road_lines):
    centres = [((300, 1600), 120), ((1500, 1080), 120), ((820, 560), 110), ((2150, 520), 100)]
    out = []
    for centre, radius in centres:
        assert road_distance(centre, road_lines) > radius + 20
        assert river_distance(centre) > radius + RIVER_HALF_WIDTH + 20
        out.append((centre, radius, blob(centre, radius, 10)))
    return out


def rectangle(centre, half_length, half_width, angle):
    c, s = math.cos(angle), math.sin(angle)
    corners = [(1, 1), (-1, 1), (-1, -1), (1, -1)]
    return [
        (centre[0] + c * u * half_length - s * v * half_width, centre[1] + s * u * half_length + c * v * half_width)
        for u, v in corners
    ]


def towns(road_lines, swamp_list):
    """Buildings round three junctions, 12 m off the roads, alleys ≥ 10 m."""
    buildings = []
    for junction in [(500, 800), (1900, 1350), (500, 1350)]:
        placed = []
        for _ in range(400):
            if len(placed) == 30:
                break
            centre = (junction[0] + rng.uniform(-220, 220), junction[1] + rng.uniform(-220, 220))
            half_length, half_width = rng.uniform(7, 18), rng.uniform(7, 14)
            reach = math.hypot(half_length, half_width)
            if road_distance(centre, road_lines) < reach + 12:
                continue
            if river_distance(centre) < reach + RIVER_HALF_WIDTH + 30:
                continue
            if any(math.dist(centre, c) < reach + r + 20 for c, r, _ in swamp_list):
                continue
            if any(math.dist(centre, c) < reach + r + 10 for c, r in placed):
                continue
            placed.append((centre, reach))
            buildings.append(rectangle(centre, half_length, half_width, rng.uniform(0, math.pi)))
    return buildings


def forests(road_lines, swamp_list, town_centres):
    placed = []
    for _ in range(4000):
        if len(placed) == 36:
            break
        radius = rng.uniform(35, 100)
        centre = (rng.uniform(radius + 20, WIDTH - radius - 20), rng.uniform(radius + 20, HEIGHT - radius - 20))
        if road_distance(centre, road_lines) < radius + 15:
            continue
        if river_distance(centre) < radius + RIVER_HALF_WIDTH + 40:
            continue
        if any(math.dist(centre, c) < radius + r + 25 for c, r, _ in swamp_list):
            continue
        if any(math.dist(centre, c) < radius + 260 for c in town_centres):
            continue
        if any(math.dist(centre, c) < radius + r + 25 for c, r in placed):
            continue
        placed.append((centre, radius))
    return [blob(centre, radius, 9) for centre, radius in placed]


def closed(ring):
    points = [[round(x, 2), round(y, 2)] for x, y in ring]
    return points + [points[0]]


def main():
    road_lines = roads()
    swamp_list = swamps(road_lines)
    obstacles = [river()] + towns(road_lines, swamp_list)
    obstacles += forests(road_lines, swamp_list, [(500, 800), (1900, 1350), (500, 1350)])
    bridges = []
    for id, y in enumerate(BRIDGE_YS, start=1):
        west, east, middle = bridge_ends(y)
        bridges.append(
            {
                "id": id,
                "ends": [[round(west[0], 2), west[1]], [round(east[0], 2), east[1]]],
                "middle": [round(middle[0], 2), middle[1]],
            }
        )
    rounded_roads = [[[round(x, 2), round(y, 2)] for x, y in line] for line in road_lines]
    for line, bridge in zip((rounded_roads[0], rounded_roads[2]), bridges):
        line[-1] = bridge["ends"][0]
    for line, bridge in zip((rounded_roads[1], rounded_roads[3]), bridges):
        line[0] = bridge["ends"][1]
    document = {
        "containers": [closed([(0, 0), (WIDTH, 0), (WIDTH, HEIGHT), (0, HEIGHT)])],
        "obstacles": [closed(ring) for ring in obstacles],
        "swamps": [{"ring": closed(ring), "cost": SWAMP_COST} for _, _, ring in swamp_list],
        "roads": rounded_roads,
        "bridges": bridges,
    }
    print(json.dumps(document, separators=(",", ":")))


if __name__ == "__main__":
    main()
