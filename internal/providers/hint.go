package providers

// SetupHint is the one-line fix for a session that has no model (none
// given, none configured), for the front ends to say after that error:
// `rx-bridge setup` configures a provider and the default model.
const SetupHint = "run `rx-bridge setup` in a terminal (or set model in config.toml)"
