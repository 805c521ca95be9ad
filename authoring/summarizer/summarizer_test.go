package summarizer

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// fake is an httptest server that answers like an OpenAI-compatible or an
// Anthropic-compatible endpoint and records what it was sent.
func fake(t *testing.T, api API, status int, reply string) (*httptest.Server, *[]map[string]any, *[]http.Header) {
	t.Helper()
	var bodies []map[string]any
	var headers []http.Header
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		data, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(data, &m); err != nil {
			t.Errorf("the client sent no JSON: %s", data)
		}
		bodies, headers = append(bodies, m), append(headers, r.Header.Clone())
		want := "/v1/chat/completions"
		if api == Anthropic {
			want = "/v1/messages"
		}
		if r.URL.Path != want || r.Method != http.MethodPost {
			t.Errorf("request %s %s; want POST %s", r.Method, r.URL.Path, want)
		}
		w.WriteHeader(status)
		io.WriteString(w, reply)
	}))
	t.Cleanup(ts.Close)
	return ts, &bodies, &headers
}

func TestSummarize(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name, path string
		api        API
		status     int
		reply      string
		key        string
		want       string
		model      string
		err        string
	}{
		{"openai", "/v1/chat/completions", OpenAI, 200, `{"model":"qwen3-8b","choices":[{"message":{"role":"assistant","content":" Goal: fix the parser. "}}]}`, "", "Goal: fix the parser.", "qwen3-8b", ""},
		{"openai with a key", "/v1/chat/completions", OpenAI, 200, `{"choices":[{"message":{"content":"ok"}}]}`, "sk-test", "ok", "asked-model", ""},
		{"anthropic", "/v1/messages", Anthropic, 200, `{"model":"claude-x","content":[{"type":"text","text":"Goal: "},{"type":"text","text":"ship."}]}`, "key", "Goal: ship.", "claude-x", ""},
		{"server error", "/v1/chat/completions", OpenAI, 500, `{"error":"overloaded"}`, "", "", "", "500"},
		{"not JSON", "/v1/messages", Anthropic, 200, `<html>`, "", "", "", "not Anthropic messages JSON"},
		{"empty text", "/v1/chat/completions", OpenAI, 200, `{"choices":[]}`, "", "", "", "no summary text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts, bodies, headers := fake(t, tt.api, tt.status, tt.reply)
			c, err := New(ts.URL+tt.path, "asked-model", tt.key)
			if err != nil {
				t.Fatal(err)
			}
			c.Now = func() time.Time { return now }
			s, err := c.Summarize(context.Background(), "user: fix the parser\nassistant: reading src/parser.ts")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Summarize error = %v; want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Text != tt.want || s.Model != tt.model || s.API != tt.api || !s.Date.Equal(now) || s.Prompt != Prompt || s.Endpoint != c.URL {
				t.Errorf("Summarize = %+v; want text %q from %s", s, tt.want, tt.model)
			}
			body, h := (*bodies)[0], (*headers)[0]
			if body["model"] != "asked-model" || body["max_tokens"] == nil {
				t.Errorf("request body %v lacks the model or max_tokens", body)
			}
			msgs, _ := body["messages"].([]any)
			if tt.api == Anthropic {
				if body["system"] != Prompt || len(msgs) != 1 {
					t.Errorf("Anthropic request: system %v, %d messages; want the prompt and one message", body["system"], len(msgs))
				}
				if tt.key != "" && (h.Get("x-api-key") != tt.key || h.Get("anthropic-version") != "2023-06-01") {
					t.Errorf("Anthropic headers %v", h)
				}
			} else {
				if len(msgs) != 2 {
					t.Errorf("OpenAI request: %d messages; want system + user", len(msgs))
				}
				if tt.key != "" && h.Get("Authorization") != "Bearer "+tt.key {
					t.Errorf("Authorization = %q", h.Get("Authorization"))
				}
				if tt.key == "" && h.Get("Authorization") != "" {
					t.Errorf("no key, yet Authorization = %q", h.Get("Authorization"))
				}
			}
		})
	}
}

func TestNewRejects(t *testing.T) {
	for _, tt := range []struct{ url, model, err string }{
		{"http://localhost:8080/", "m", "must end in"},
		{"ftp://x/v1/messages", "m", "not an http"},
		{"http://localhost:8080/v1/chat/completions", "", "model name is required"},
	} {
		if _, err := New(tt.url, tt.model, ""); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("New(%q, %q) = %v; want %q", tt.url, tt.model, err, tt.err)
		}
	}
}

func TestReplyTooLarge(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"choices":[{"message":{"content":"`+strings.Repeat("x", maxResponse+10)+`"}}]}`)
	}))
	defer ts.Close()
	c, _ := New(ts.URL+"/v1/chat/completions", "m", "")
	if _, err := c.Summarize(context.Background(), "x"); err == nil || !strings.Contains(err.Error(), "over") {
		t.Errorf("a huge reply: %v; want an error", err)
	}
}
