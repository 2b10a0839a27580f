package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// serverModel is one entry of a server's GET /models list.
type serverModel struct {
	ID string `json:"id"`
	// ContextWindow is what the server reports (0: it does not say).
	ContextWindow int `json:"contextWindow,omitempty"`
}

// modelList is the body of GET /models: OpenAI's {"data": [...]}, with
// the context window under whichever name the server uses.
type modelList struct {
	Data []struct {
		ID               string `json:"id"`
		ContextLength    int    `json:"context_length"`     // OpenRouter, LM Studio
		ContextWindow    int    `json:"context_window"`     // Groq, others
		MaxModelLen      int    `json:"max_model_len"`      // vLLM
		MaxContextLength int    `json:"max_context_length"` // LM Studio (api/v0)
		Meta             struct {
			NCtxTrain int `json:"n_ctx_train"` // llama.cpp
		} `json:"meta"`
	} `json:"data"`
}

// modelsURL is <base>/models.
func modelsURL(base string) string { return strings.TrimRight(base, "/") + "/models" }

// fetchModels reads the server's model list with key (none when empty).
// Its errors are one line and never contain the key: the server's answer
// body is not quoted, since a server may echo what it was sent.
func fetchModels(ctx context.Context, client *http.Client, base, key string) ([]serverModel, error) {
	u := modelsURL(base)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("invalid URL %s: %v", base, err)
	}
	req.Header.Set("Accept", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("cannot reach %s: %v", u, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		if key == "" {
			return nil, fmt.Errorf("%s wants an API key (HTTP %d); give one", u, resp.StatusCode)
		}
		return nil, fmt.Errorf("%s refused the API key (HTTP %d); check the key", u, resp.StatusCode)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("GET %s: HTTP %s", u, resp.Status)
	}
	var list modelList
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&list); err != nil {
		return nil, fmt.Errorf("GET %s: the answer is not an OpenAI-compatible model list", u)
	}
	var out []serverModel
	seen := map[string]bool{}
	for _, d := range list.Data {
		if strings.TrimSpace(d.ID) == "" || seen[d.ID] {
			continue
		}
		seen[d.ID] = true
		cw := 0
		for _, n := range []int{d.ContextLength, d.ContextWindow, d.MaxModelLen, d.MaxContextLength, d.Meta.NCtxTrain} {
			if n > 0 {
				cw = n
				break
			}
		}
		out = append(out, serverModel{ID: d.ID, ContextWindow: cw})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s lists no models; load or pull one on the server first", u)
	}
	slices.SortFunc(out, func(a, b serverModel) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// probeTimeout bounds the look for a local server on one port.
const probeTimeout = 700 * time.Millisecond

// probeLocal returns those of candidates whose /models answers with a
// model list, in candidates' order.
func probeLocal(ctx context.Context, candidates []providerPreset) []providerPreset {
	client := &http.Client{Timeout: probeTimeout}
	defer client.CloseIdleConnections()
	up := make([]bool, len(candidates))
	var wg sync.WaitGroup
	for i, c := range candidates {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, probeTimeout)
			defer cancel()
			_, err := fetchModels(ctx, client, c.BaseURL, "")
			up[i] = err == nil
		})
	}
	wg.Wait()
	var out []providerPreset
	for i, c := range candidates {
		if up[i] {
			out = append(out, c)
		}
	}
	return out
}
