package openai

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

func validConfig() Config {
	return Config{
		Name:      "local",
		BaseURL:   "http://127.0.0.1:8080/v1",
		APIKeyEnv: "LOCAL_LLM_KEY",
		Models:    []ModelConfig{{ID: "qwen2.5-coder", Tools: true}},
	}
}

// absKeyFile is an absolute path on every system.
var absKeyFile = filepath.Join(os.TempDir(), "keys", "local.key")

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		mutate  func(*Config)
		wantErr string
	}{
		{name: "valid", mutate: func(*Config) {}},
		{name: "missing name", mutate: func(c *Config) { c.Name = "" }, wantErr: "name must match"},
		{name: "slash in name", mutate: func(c *Config) { c.Name = "a/b" }, wantErr: "name must match"},
		{name: "relative url", mutate: func(c *Config) { c.BaseURL = "/v1" }, wantErr: "base_url must be an absolute"},
		{name: "ftp url", mutate: func(c *Config) { c.BaseURL = "ftp://h/v1" }, wantErr: "base_url must be an absolute"},
		{name: "userinfo in url", mutate: func(c *Config) { c.BaseURL = "https://u:p@h/v1" }, wantErr: "must not carry credentials"},
		{name: "query in url", mutate: func(c *Config) { c.BaseURL = "https://h/v1?k=v" }, wantErr: "query or fragment"},
		{name: "bad env name", mutate: func(c *Config) { c.APIKeyEnv = "sk-abc" }, wantErr: "api_key_env must be"},
		{name: "key header without env", mutate: func(c *Config) { c.APIKeyEnv = ""; c.APIKeyHeader = "api-key" }, wantErr: "api_key_header needs api_key_env or api_key_file"},
		{name: "key file", mutate: func(c *Config) { c.APIKeyEnv = ""; c.APIKeyFile = absKeyFile }},
		{name: "key file and env", mutate: func(c *Config) { c.APIKeyFile = absKeyFile }, wantErr: "api_key_env and api_key_file exclude each other"},
		{name: "relative key file", mutate: func(c *Config) { c.APIKeyEnv = ""; c.APIKeyFile = "keys/local.key" }, wantErr: "api_key_file must be an absolute path"},
		{name: "key header with key file", mutate: func(c *Config) { c.APIKeyEnv = ""; c.APIKeyFile = absKeyFile; c.APIKeyHeader = "api-key" }},
		{name: "authorization header", mutate: func(c *Config) { c.Headers = map[string]string{"Authorization": "Bearer x"} }, wantErr: "looks like a credential"},
		{name: "x-api-key header", mutate: func(c *Config) { c.Headers = map[string]string{"X-Api-Key": "x"} }, wantErr: "looks like a credential"},
		{name: "ordinary header", mutate: func(c *Config) { c.Headers = map[string]string{"X-Title": "rx-bridge"} }},
		{name: "header line break", mutate: func(c *Config) { c.Headers = map[string]string{"X-Title": "a\r\nb"} }, wantErr: "line break"},
		{name: "negative timeout", mutate: func(c *Config) { c.IdleTimeout = -time.Second }, wantErr: "idle_timeout must not be negative"},
		{name: "no models", mutate: func(c *Config) { c.Models = nil }, wantErr: "at least one"},
		{name: "model without id", mutate: func(c *Config) { c.Models[0].ID = "" }, wantErr: "id is required"},
		{name: "slash id needs ref_name", mutate: func(c *Config) { c.Models[0].ID = "Qwen/Qwen2.5" }, wantErr: "set ref_name"},
		{name: "slash id with ref_name", mutate: func(c *Config) { c.Models[0].ID = "Qwen/Qwen2.5"; c.Models[0].RefName = "qwen2.5" }},
		{name: "duplicate ref", mutate: func(c *Config) { c.Models = append(c.Models, ModelConfig{ID: "other", RefName: "qwen2.5-coder"}) }, wantErr: `ref "local/qwen2.5-coder" is declared twice`},
		{name: "default effort not listed", mutate: func(c *Config) { c.Models[0].Efforts = []string{"low"}; c.Models[0].DefaultEffort = "high" }, wantErr: "default_effort \"high\" is not one of"},
		{name: "duplicate effort", mutate: func(c *Config) { c.Models[0].Efforts = []string{"low", "low"} }, wantErr: "efforts must be distinct"},
		{name: "negative price", mutate: func(c *Config) { c.Models[0].InputPerMillion = -1 }, wantErr: "prices must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := validConfig()
			c.Models = append([]ModelConfig(nil), c.Models...)
			tt.mutate(&c)
			err := c.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate() = %v, want it to contain %q", err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), `providers.openai "`+c.Name+`"`) {
				t.Fatalf("error %q does not name the provider", err)
			}
		})
	}
}

// TestConfigTOML pins the TOML names docs/PROVIDERS.md documents.
func TestConfigTOML(t *testing.T) {
	t.Parallel()
	const doc = `
[[providers.openai]]
name = "local"
base_url = "http://127.0.0.1:8080/v1"
api_key_env = "LOCAL_LLM_KEY"
api_key_header = "api-key"
idle_timeout = "45s"
max_attempts = 2
headers = { "X-Title" = "rx-bridge" }

[[providers.openai.models]]
id = "Qwen/Qwen2.5-Coder-7B"
ref_name = "qwen2.5-coder"
display_name = "Qwen 2.5 Coder 7B"
context_window = 32768
tools = true
reasoning = true
efforts = ["low", "high"]
default_effort = "low"
input_per_million = 0.5
pricing_currency = "USD"
`
	var file struct {
		Providers struct {
			OpenAI []Config `toml:"openai"`
		} `toml:"providers"`
	}
	md, err := toml.Decode(doc, &file)
	if err != nil {
		t.Fatal(err)
	}
	if u := md.Undecoded(); len(u) != 0 {
		t.Fatalf("undecoded keys: %v", u)
	}
	if len(file.Providers.OpenAI) != 1 {
		t.Fatalf("got %d providers", len(file.Providers.OpenAI))
	}
	c := file.Providers.OpenAI[0]
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	m := c.Models[0]
	if c.IdleTimeout != 45*time.Second || c.MaxAttempts != 2 || c.Headers["X-Title"] != "rx-bridge" || c.APIKeyHeader != "api-key" {
		t.Fatalf("provider fields: %+v", c)
	}
	if m.RefName != "qwen2.5-coder" || m.ContextWindow != 32768 || !m.Tools || !m.Reasoning || m.DefaultEffort != "low" || m.InputPerMillion != 0.5 {
		t.Fatalf("model fields: %+v", m)
	}
}
