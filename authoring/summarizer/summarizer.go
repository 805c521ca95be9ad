// Package summarizer asks a model for a conversation summary once, at
// import time, over an OpenAI-compatible (/v1/chat/completions) or an
// Anthropic-compatible (/v1/messages) endpoint: a hosted API, or a local
// llama.cpp, vLLM or Ollama server. Serving a lesson never calls a model;
// the summaries it gets are stored in the lesson with where they came from.
package summarizer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Prompt is the instruction sent with every range to summarize. It is
// stored with each summary, so a reader can judge what was asked.
const Prompt = "You are compacting the context of a coding agent's session. Summarize the conversation below so the agent can continue the work from your summary alone: keep the user's goal and explicit instructions, decisions made, files read or changed, commands run and their outcome, errors still open, and the next step. Be concise; do not invent anything."

// maxResponse bounds what is read of a reply.
const maxResponse = 4 << 20

// API is the request shape an endpoint speaks.
type API string

// APIs.
const (
	OpenAI    API = "openai"    // POST {model, messages} → choices[0].message.content
	Anthropic API = "anthropic" // POST {model, max_tokens, system, messages} → content[].text
)

// Client calls one endpoint.
type Client struct {
	URL    string // the endpoint, ending in /v1/chat/completions or /v1/messages
	Model  string // sent as model
	Key    string // bearer (OpenAI) or x-api-key (Anthropic); "" for a local server
	HTTP   *http.Client
	Now    func() time.Time
	api    API
	maxOut int
}

// New checks the endpoint URL and returns a client for it.
func New(url, model, key string) (*Client, error) {
	c := &Client{URL: url, Model: model, Key: key, HTTP: &http.Client{Timeout: 3 * time.Minute}, Now: time.Now, maxOut: 2048}
	switch {
	case strings.HasSuffix(url, "/v1/chat/completions"):
		c.api = OpenAI
	case strings.HasSuffix(url, "/v1/messages"):
		c.api = Anthropic
	default:
		return nil, fmt.Errorf("summarizer %q: the URL must end in /v1/chat/completions (OpenAI-compatible: llama.cpp, vLLM, Ollama) or /v1/messages (Anthropic-compatible)", url)
	}
	if !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
		return nil, fmt.Errorf("summarizer %q: not an http(s) URL", url)
	}
	if model == "" {
		return nil, errors.New("summarizer: a model name is required (-summarizer-model)")
	}
	return c, nil
}

// Summary is a model's summary with where it came from.
type Summary struct {
	Text     string
	Model    string // the model the endpoint says answered (else the one asked)
	Endpoint string
	API      API
	Date     time.Time
	Prompt   string
}

// Summarize asks for a summary of conversation (a rendering of the range
// to replace, one message per paragraph).
func (c *Client) Summarize(ctx context.Context, conversation string) (Summary, error) {
	return c.SummarizeWith(ctx, Prompt, conversation)
}

// SummarizeWith is Summarize with another instruction (a summary card's
// own prompt); the Summary records the prompt it was asked with.
func (c *Client) SummarizeWith(ctx context.Context, prompt, conversation string) (Summary, error) {
	body, err := c.request(prompt, conversation)
	if err != nil {
		return Summary{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return Summary{}, fmt.Errorf("summarizer: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	c.authorize(req)
	res, err := c.HTTP.Do(req)
	if err != nil {
		return Summary{}, fmt.Errorf("summarizer %s: %w", c.URL, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxResponse+1))
	if err != nil {
		return Summary{}, fmt.Errorf("summarizer %s: read the reply: %w", c.URL, err)
	}
	if len(data) > maxResponse {
		return Summary{}, fmt.Errorf("summarizer %s: the reply is over %d bytes", c.URL, maxResponse)
	}
	if res.StatusCode != http.StatusOK {
		return Summary{}, fmt.Errorf("summarizer %s: %s: %s", c.URL, res.Status, snippet(data))
	}
	text, model, err := c.parse(data)
	if err != nil {
		return Summary{}, fmt.Errorf("summarizer %s: %w", c.URL, err)
	}
	if model == "" {
		model = c.Model
	}
	return Summary{Text: text, Model: model, Endpoint: c.URL, API: c.api, Date: c.Now().UTC(), Prompt: prompt}, nil
}

func (c *Client) request(prompt, conversation string) ([]byte, error) {
	user := map[string]string{"role": "user", "content": conversation}
	if c.api == Anthropic {
		return json.Marshal(map[string]any{"model": c.Model, "max_tokens": c.maxOut, "system": prompt,
			"messages": []any{user}})
	}
	return json.Marshal(map[string]any{"model": c.Model, "max_tokens": c.maxOut,
		"messages": []any{map[string]string{"role": "system", "content": prompt}, user}})
}

func (c *Client) authorize(req *http.Request) {
	if c.Key == "" {
		return
	}
	if c.api == Anthropic {
		req.Header.Set("x-api-key", c.Key)
		req.Header.Set("anthropic-version", "2023-06-01")
		return
	}
	req.Header.Set("Authorization", "Bearer "+c.Key)
}

// parse reads the summary text out of a reply.
func (c *Client) parse(data []byte) (string, string, error) {
	var text, model string
	if c.api == Anthropic {
		var r struct {
			Model   string `json:"model"`
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return "", "", fmt.Errorf("the reply is not Anthropic messages JSON: %w", err)
		}
		for _, b := range r.Content {
			if b.Type == "text" {
				text += b.Text
			}
		}
		model = r.Model
	} else {
		var r struct {
			Model   string `json:"model"`
			Choices []struct {
				Message struct {
					Content string `json:"content"`
				} `json:"message"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return "", "", fmt.Errorf("the reply is not chat completions JSON: %w", err)
		}
		if len(r.Choices) > 0 {
			text = r.Choices[0].Message.Content
		}
		model = r.Model
	}
	if text = strings.TrimSpace(text); text == "" {
		return "", "", errors.New("the reply holds no summary text")
	}
	return text, model, nil
}

// snippet is the start of a reply, for an error message.
func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
