// A game's settings as the server declares them (/api/games: `schema.variant`, a JSON Schema
// object, and `defaults.variant`), read for the plugins' lobby forms: the page never holds a
// game's defaults or limits of its own.

/** The settings a new table's form offers: every property of the schema but the player count,
 * which the seats decide. A list of [name, property]. */
export function settings(game) {
  const properties = game?.schema?.variant?.properties || {};
  return Object.entries(properties).filter(([name]) => name !== "players");
}

/** A setting's value for a new table: the game's defaults, else the schema's default. */
export function initial(game, name, property) {
  const defaults = game?.defaults?.variant || {};
  return name in defaults ? defaults[name] : property.default;
}

/** A setting's choices, the default first (then the schema's order): its enum, or the whole
 * numbers from its minimum to its maximum; null when it has neither. */
export function choices(game, name, property) {
  let values = null;
  if (Array.isArray(property.enum)) values = [...property.enum];
  else if (property.type === "integer" && Number.isInteger(property.minimum) && Number.isInteger(property.maximum)) {
    values = [];
    for (let value = property.minimum; value <= property.maximum; value += 1) values.push(value);
  }
  if (!values) return null;
  const first = initial(game, name, property);
  return values.includes(first) ? [first, ...values.filter((value) => value !== first)] : values;
}

/** A control's text read back in the property's type (a select's value is always a string). */
export function typed(property, text) {
  return property.type === "integer" || property.type === "number" ? Number(text) : text;
}
