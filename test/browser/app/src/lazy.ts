/** A module the rules page imports lazily: under `/src/`, one of the dev server's own paths. */
export const lazy = 42
