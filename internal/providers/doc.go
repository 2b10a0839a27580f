// Package providers is the model side of an agent session: the Provider
// interface every model source implements (plugin sidecars through the
// extension host, built-in HTTP clients such as providers/openai), the
// Catalog of every model a session can use keyed by ref, and the Assembler
// that turns a chunk stream into one final response.
//
// It never picks a model on its own: resolving a ref that no provider
// declares is an error naming the ref and the refs that exist, never a
// fallback to another model. It holds no credentials; providers read their
// own from the environment.
package providers
