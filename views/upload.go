package views

import "context"

// What the index says of uploads; package web checks they are package
// uploads' limits.
const (
	UploadMaxMiB = 32 // uploads.MaxBytes, in MiB
	UploadHours  = 2  // uploads.TTL, in hours
)

// SessionBar is what every page of an uploaded session says about it,
// above the page: it is private, where its report is, and a button that
// forgets it.
type SessionBar struct {
	UI        UI
	ReportURL string
	ForgetURL string // the form posts _method=DELETE here
	Redacted  bool   // false: kept as recorded, by the uploader's choice
}

type sessionBarKey struct{}

// WithSessionBar returns ctx with the bar the page rendered with it
// shows: every page of an uploaded session is rendered so.
func WithSessionBar(ctx context.Context, b SessionBar) context.Context {
	return context.WithValue(ctx, sessionBarKey{}, b)
}

func sessionBarOf(ctx context.Context) (SessionBar, bool) {
	b, ok := ctx.Value(sessionBarKey{}).(SessionBar)
	return b, ok
}

// Fact is one labelled value of a list.
type Fact struct{ Label, Value string }

// SessionReportPage is what an uploaded session was read as and what was
// redacted from it, shown before its first step.
type SessionReportPage struct {
	Lang       string
	UI         UI
	Assets     Assets
	AltLang    Link
	Title      string
	StartURL   string // step 1
	ForgetURL  string
	IndexURL   string
	Read       []Fact // what was read
	Redacted   bool   // false: kept as recorded
	Redactions []Fact // class → how many, only those found
	Shared     bool   // the servers share sessions through NATS
	Hours      int    // its life after its last use
}

// ForgottenPage says an uploaded session is gone.
type ForgottenPage struct {
	Lang     string
	UI       UI
	Assets   Assets
	IndexURL string
}

func hoursArg(n int) map[string]string {
	return map[string]string{"hours": itoa(n), "max": itoa(UploadMaxMiB)}
}
