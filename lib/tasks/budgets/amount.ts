// An amount of spend as people read it: whole numbers as they are, fractions to two places.
// Pure, so the board's bars and the engine's sentences say the same figure.
export const formatAmount = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(2));
