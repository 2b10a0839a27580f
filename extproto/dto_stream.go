package extproto

// Provider stream DTOs: open, chunk, end and cancel.

// StreamOpenParams opens a provider stream. SeqBase is the first chunk seq
// the host expects (the reference host sends 1).
type StreamOpenParams struct {
	Effort      string          `json:"effort,omitempty"`
	Model       string          `json:"model,omitempty"`
	ProviderRef string          `json:"providerRef" rx:"nonempty"`
	Request     ProviderRequest `json:"request"`
	SeqBase     int64           `json:"seqBase" rx:"min=0"`
	StreamID    string          `json:"streamId" rx:"nonempty"`
}

// Validate checks the ids, the seq base and the request.
func (p *StreamOpenParams) Validate() error {
	switch {
	case isBlank(p.ProviderRef):
		return fieldErrorf("/providerRef", "must not be blank")
	case p.SeqBase < 0:
		return fieldErrorf("/seqBase", "must be >= 0")
	case isBlank(p.StreamID):
		return fieldErrorf("/streamId", "must not be blank")
	}
	if err := p.Request.Validate(); err != nil {
		return underPath(err, "request")
	}
	return nil
}

// StreamOpenResult says whether the extension accepted the stream.
type StreamOpenResult struct {
	Accepted bool `json:"accepted"`
}

// StreamChunkParams carries one chunk of a stream; Seq is 1-based and
// contiguous.
type StreamChunkParams struct {
	Chunk    ProviderChunk `json:"chunk"`
	Seq      int64         `json:"seq" rx:"min=1"`
	StreamID string        `json:"streamId" rx:"nonempty"`
}

// Validate checks the id, the seq and the chunk.
func (p *StreamChunkParams) Validate() error {
	if p.Seq < 1 {
		return fieldErrorf("/seq", "must be >= 1")
	}
	if isBlank(p.StreamID) {
		return fieldErrorf("/streamId", "must not be blank")
	}
	if err := p.Chunk.Validate(); err != nil {
		return underPath(err, "chunk")
	}
	return nil
}

// ProviderChunk is one unit of a provider stream; which members matter
// depends on Type.
type ProviderChunk struct {
	ArgChars  int               `json:"argChars,omitempty" rx:"min=0"`
	Error     *ProviderError    `json:"error,omitempty"`
	Signature string            `json:"signature,omitempty"`
	Text      string            `json:"text,omitempty"`
	ToolCall  *ProviderToolCall `json:"toolCall,omitempty"`
	Type      ProviderChunkType `json:"type"`
	Usage     *ProviderUsage    `json:"usage,omitempty"`
}

// Validate applies the per-type invariants: error is present iff the type
// is error, a usage chunk carries usage, tool_call and tool_call_start
// chunks carry a tool call, and argChars is not negative.
func (c *ProviderChunk) Validate() error {
	if !c.Type.Valid() {
		return enumError("/type", string(c.Type), c.Type.enumValues())
	}
	if c.ArgChars < 0 {
		return fieldErrorf("/argChars", "must be >= 0")
	}
	if c.Type == ChunkError {
		if c.Error == nil {
			return fieldErrorf("/error", "required for an error chunk")
		}
		if err := c.Error.Validate(); err != nil {
			return underPath(err, "error")
		}
	} else if c.Error != nil {
		return fieldErrorf("/error", "only allowed in an error chunk, not %s", c.Type)
	}
	if c.Type == ChunkUsage && c.Usage == nil {
		return fieldErrorf("/usage", "required for a usage chunk")
	}
	if c.Usage != nil {
		if err := c.Usage.Validate(); err != nil {
			return underPath(err, "usage")
		}
	}
	if (c.Type == ChunkToolCall || c.Type == ChunkToolCallStart) && c.ToolCall == nil {
		return fieldErrorf("/toolCall", "required for a %s chunk", c.Type)
	}
	if c.ToolCall != nil {
		if err := c.ToolCall.Validate(); err != nil {
			return underPath(err, "toolCall")
		}
	}
	return nil
}

// ProviderError is the failure an error chunk reports.
type ProviderError struct {
	Code    ProviderErrorCode `json:"code"`
	Message string            `json:"message" rx:"nonempty"`
}

// Validate checks the code and that the message is not blank.
func (e *ProviderError) Validate() error {
	if !e.Code.Valid() {
		return enumError("/code", string(e.Code), e.Code.enumValues())
	}
	if isBlank(e.Message) {
		return fieldErrorf("/message", "must not be blank")
	}
	return nil
}

// StreamEndParams ends a stream after LastSeq (0 when no chunk was sent).
// Interrupted marks a cut-off stream, Error a clean failure.
type StreamEndParams struct {
	Error       string `json:"error,omitempty"`
	Interrupted bool   `json:"interrupted,omitempty"`
	LastSeq     int64  `json:"lastSeq" rx:"min=0"`
	StreamID    string `json:"streamId" rx:"nonempty"`
}

// StreamCancelParams cancels a stream.
type StreamCancelParams struct {
	StreamID string `json:"streamId" rx:"nonempty"`
}

// StreamCancelResult says whether the stream was known and got cancelled.
type StreamCancelResult struct {
	Cancelled bool `json:"cancelled"`
}
