// Package openai is the built-in provider for OpenAI-compatible
// chat-completions servers (OpenAI, llama.cpp, Ollama, vLLM, ...): it maps a
// protocol.ProviderRequest onto `POST <base_url>/chat/completions` with
// `stream: true`, parses the server-sent event stream, and yields the same
// protocol.ProviderChunk sequence a plugin provider would.
//
// It owns the HTTP exchange (timeouts, bounded retries before the first
// streamed byte, error texts that say what the server answered) and the
// translation in both directions. It never stores an API key anywhere but
// in memory, never puts one in an error, and never retries once streaming
// has begun.
package openai
