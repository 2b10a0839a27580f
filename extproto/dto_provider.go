package extproto

import "encoding/json"

// Provider DTOs: the catalog, the request a provider stream serves, and the
// message, tool and usage types it is made of.

// ProviderCatalogParams is the empty params of extension/provider/catalog.
type ProviderCatalogParams struct{}

// ProviderCatalogResult lists an extension's models.
type ProviderCatalogResult struct {
	Providers []ProviderDescriptor `json:"providers"`
}

// MarshalJSON writes a nil Providers as `[]`: the member is a required
// array, and an empty catalog is `"providers":[]`.
func (r ProviderCatalogResult) MarshalJSON() ([]byte, error) {
	type plain ProviderCatalogResult
	if r.Providers == nil {
		r.Providers = []ProviderDescriptor{}
	}
	return json.Marshal(plain(r))
}

// ProviderDescriptor describes one model an extension serves. It never
// carries endpoints, headers or credentials.
type ProviderDescriptor struct {
	CacheHitPerMillion             float64  `json:"cacheHitPerMillion,omitempty" rx:"min=0"`
	ContextWindow                  int      `json:"contextWindow,omitempty" rx:"min=0"`
	DefaultEffort                  string   `json:"defaultEffort,omitempty"`
	DisplayName                    string   `json:"displayName,omitempty"`
	Efforts                        []string `json:"efforts,omitempty"`
	InputPerMillion                float64  `json:"inputPerMillion,omitempty" rx:"min=0"`
	Model                          string   `json:"model,omitempty"`
	OutputPerMillion               float64  `json:"outputPerMillion,omitempty" rx:"min=0"`
	PricingCurrency                string   `json:"pricingCurrency,omitempty"`
	Reasoning                      bool     `json:"reasoning,omitempty"`
	ReasoningRoundTrip             bool     `json:"reasoningRoundTrip,omitempty"`
	Ref                            string   `json:"ref" rx:"nonempty"`
	ToolCallReasoning              bool     `json:"toolCallReasoning,omitempty"`
	Tools                          bool     `json:"tools,omitempty"`
	Vision                         bool     `json:"vision,omitempty"`
	WarnOnMissingToolCallReasoning bool     `json:"warnOnMissingToolCallReasoning,omitempty"`
}

// ProviderRequest is the model request a provider stream serves.
// Temperature is a pointer because 0 is a meaningful temperature.
type ProviderRequest struct {
	MaxTokens      int                     `json:"maxTokens" rx:"min=0"`
	Messages       []ProviderMessage       `json:"messages"`
	ResponseFormat *ProviderResponseFormat `json:"responseFormat,omitempty"`
	Temperature    *float64                `json:"temperature,omitempty"`
	Tools          []ProviderToolSchema    `json:"tools"`
}

// MarshalJSON writes nil Messages and Tools as `[]`: both are required
// arrays and `null` is invalid.
func (r ProviderRequest) MarshalJSON() ([]byte, error) {
	type plain ProviderRequest
	if r.Messages == nil {
		r.Messages = []ProviderMessage{}
	}
	if r.Tools == nil {
		r.Tools = []ProviderToolSchema{}
	}
	return json.Marshal(plain(r))
}

// Validate applies the ProviderRequest rules: messages and tools are
// arrays (not null), maxTokens >= 0, responseFormat.type is non-blank when
// present, and every tool has a name and a JSON object as parameters.
func (r *ProviderRequest) Validate() error {
	if r.MaxTokens < 0 {
		return fieldErrorf("/maxTokens", "must be >= 0")
	}
	if r.Messages == nil {
		return fieldErrorf("/messages", "must be an array, not null")
	}
	for i := range r.Messages {
		if err := r.Messages[i].Validate(); err != nil {
			return underPath(err, "messages", i)
		}
	}
	if r.ResponseFormat != nil && isBlank(r.ResponseFormat.Type) {
		return fieldErrorf("/responseFormat/type", "must not be blank")
	}
	if r.Tools == nil {
		return fieldErrorf("/tools", "must be an array, not null")
	}
	for i := range r.Tools {
		if err := r.Tools[i].Validate(); err != nil {
			return underPath(err, "tools", i)
		}
	}
	return nil
}

// ProviderResponseFormat constrains the model's output format.
type ProviderResponseFormat struct {
	Type string `json:"type" rx:"nonempty"`
}

// ProviderMessage is one message of a conversation. Its members are
// snake_case on the wire, unlike the rest of the protocol. Content is
// externalizable in the schema, though no host externalizes it.
type ProviderMessage struct {
	Content            string             `json:"content,omitempty" rx:"externalizable"`
	Images             []string           `json:"images,omitempty"`
	Name               string             `json:"name,omitempty"`
	ReasoningContent   string             `json:"reasoning_content,omitempty"`
	ReasoningSignature string             `json:"reasoning_signature,omitempty"`
	Role               ProviderRole       `json:"role,omitempty"`
	ToolCallID         string             `json:"tool_call_id,omitempty"`
	ToolCalls          []ProviderToolCall `json:"tool_calls,omitempty"`
}

// Validate checks the role (when set) and every tool call.
func (m *ProviderMessage) Validate() error {
	if m.Role != "" && !m.Role.Valid() {
		return enumError("/role", string(m.Role), m.Role.enumValues())
	}
	return validateToolCalls(m.ToolCalls, "tool_calls")
}

// ProviderToolCall is one tool call of the model. Arguments is the JSON
// text of the call's arguments; it is required but may be empty.
type ProviderToolCall struct {
	Arguments        string `json:"arguments"`
	ID               string `json:"id" rx:"nonempty"`
	Name             string `json:"name" rx:"nonempty"`
	ThoughtSignature string `json:"thought_signature,omitempty"`
}

// Validate checks that the call has an id and a name.
func (c *ProviderToolCall) Validate() error {
	if isBlank(c.ID) {
		return fieldErrorf("/id", "must not be blank")
	}
	if isBlank(c.Name) {
		return fieldErrorf("/name", "must not be blank")
	}
	return nil
}

func validateToolCalls(calls []ProviderToolCall, member string) error {
	for i := range calls {
		if err := calls[i].Validate(); err != nil {
			return underPath(err, member, i)
		}
	}
	return nil
}

// ProviderToolSchema is one tool offered to the model. Parameters is its
// JSON Schema and must be a JSON object.
type ProviderToolSchema struct {
	Description string          `json:"description,omitempty"`
	Name        string          `json:"name" rx:"nonempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Validate checks the name and that Parameters is a JSON object.
func (t *ProviderToolSchema) Validate() error {
	if isBlank(t.Name) {
		return fieldErrorf("/name", "must not be blank")
	}
	if !isJSONObject(t.Parameters) {
		return fieldErrorf("/parameters", "must be a JSON object")
	}
	return nil
}

// ProviderUsage is the token accounting of one turn.
type ProviderUsage struct {
	CacheHitTokens   int    `json:"cacheHitTokens" rx:"min=0"`
	CacheMissTokens  int    `json:"cacheMissTokens" rx:"min=0"`
	CompletionTokens int    `json:"completionTokens" rx:"min=0"`
	FinishReason     string `json:"finishReason,omitempty"`
	PromptTokens     int    `json:"promptTokens" rx:"min=0"`
	ReasoningTokens  int    `json:"reasoningTokens" rx:"min=0"`
	TotalTokens      int    `json:"totalTokens" rx:"min=0"`
}

// Validate checks that no count is negative.
func (u *ProviderUsage) Validate() error {
	for _, c := range [...]struct {
		ptr string
		n   int
	}{
		{"/cacheHitTokens", u.CacheHitTokens},
		{"/cacheMissTokens", u.CacheMissTokens},
		{"/completionTokens", u.CompletionTokens},
		{"/promptTokens", u.PromptTokens},
		{"/reasoningTokens", u.ReasoningTokens},
		{"/totalTokens", u.TotalTokens},
	} {
		if c.n < 0 {
			return fieldErrorf(c.ptr, "must be >= 0")
		}
	}
	return nil
}
