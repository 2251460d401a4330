// The package version (checked against package.json and the engine's by the tests).
export const VERSION = '0.1.0';
