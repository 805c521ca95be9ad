package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"runtime/debug"
	"time"

	"ctxsim/internal/tokens"
	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/web"
	"ctxsim/web/hosts"
	"ctxsim/web/rooms"
	"ctxsim/web/rooms/store"
	"ctxsim/web/uploads"
)

// runServe is `ctxsim serve`: the lessons over HTTP until ctx is done.
func runServe(ctx context.Context, fs *flag.FlagSet, args []string, stdout, stderr io.Writer) error {
	addr := fs.String("addr", ":8080", "listen address, HOST:PORT")
	dir := lessonsFlag(fs)
	roomsURL := fs.String("rooms", "", "keep rooms and uploaded sessions in NATS JetStream at nats://HOST:PORT, shared by every server on it (default: in memory, ending with the process)")
	proxies := fs.String("trusted-proxy", "", "CIDR[,CIDR]: proxies whose X-Forwarded-For names the client (default: none, the peer is the client)")
	streams := fs.Int("max-streams", 0, "open room event streams per server (default 10000)")
	clientStreams := fs.Int("max-client-streams", 0, "open room event streams per client address (default 500)")
	uploadMemory := fs.Int("upload-memory", 0, "MiB of memory uploaded sessions may hold on this server (default 1024)")
	clientRooms := fs.Int("max-client-rooms", 0, "live rooms one client address may have opened, those its streams keep open included (default 20)")
	var hostNames []string
	fs.Func("host", "NAME[,NAME]: a name this server answers to besides localhost and IP addresses, such as its public name (repeatable; others get 421)",
		func(v string) error { hostNames = append(hostNames, v); return nil })
	if err := fs.Parse(args); err != nil {
		return err
	}
	trusted, err := web.ParseTrustedProxies(*proxies)
	if err != nil {
		return fmt.Errorf("-trusted-proxy: %w", err)
	}
	if _, err := hosts.New(hosts.ParseNames(hostNames), nil); err != nil {
		return fmt.Errorf("-host: %w", err)
	}
	if *streams < 0 || *clientStreams < 0 || *clientRooms < 0 || *uploadMemory < 0 {
		return errors.New("-max-streams, -max-client-streams, -max-client-rooms, -upload-memory: want a positive number")
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	roomStore, closeRooms, err := openRooms(ctx, *roomsURL, log)
	if err != nil {
		return err
	}
	defer closeRooms()
	shared, closeUploads, err := openUploads(ctx, *roomsURL, log)
	if err != nil {
		return err
	}
	defer closeUploads()
	// Loading makes much short-lived garbage: collect less often meanwhile,
	// and give the memory back before serving.
	gc := debug.SetGCPercent(400)
	cfg, later, err := loadLessons(*dir, log, true)
	if err != nil {
		return err
	}
	// The imported sessions load from now on, beside the built-in lessons'
	// preparation (two cores: a 10,048-record session's 1 s of loading is
	// then mostly done when the server listens).
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // a return before serving ends the loading too
	loaded := loadLater(ctx, *dir, later, cfg.Tokens)
	cfg.Rooms, cfg.TrustedProxies, cfg.Hosts = roomStore, trusted, hosts.ParseNames(hostNames)
	cfg.RoomLimits = rooms.Limits{Streams: *streams, ClientStreams: *clientStreams, ClientRooms: *clientRooms}
	cfg.Uploads, cfg.UploadLimits = shared, uploads.Limits{Memory: int64(*uploadMemory) << 20}
	srv, err := web.New(cfg)
	if err != nil {
		return err
	}
	if err := srv.Pending(later...); err != nil {
		return err
	}
	debug.SetGCPercent(gc)
	debug.FreeOSMemory()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	fmt.Fprintf(stdout, "ctxsim: serving lessons at http://%s/\n", displayAddr(ln.Addr()))
	if len(later) > 0 {
		go prepareLater(ctx, srv, loaded, log)
	}
	return srv.Serve(ctx, ln)
}

// loaded is an imported session read from its directory, or why not.
type loaded struct {
	id     string
	lesson *scenarios.Lesson
	err    error
	start  time.Time
}

// loadLater reads the imported sessions ids of dir one by one, from now
// on, and hands each over as it is read; at most one waits read and not
// taken, so memory holds one session more than the server does.
func loadLater(ctx context.Context, dir string, ids []string, tok sim.Tokenizer) <-chan loaded {
	out := make(chan loaded)
	go func() {
		defer close(out)
		for _, id := range ids {
			l := loaded{id: id, start: time.Now()}
			l.lesson, l.err = loadOne(dir, id, tok)
			select {
			case out <- l:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// loadOne reads the lesson directory id of dir.
func loadOne(dir, id string, tok sim.Tokenizer) (*scenarios.Lesson, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	ls, err := scenarios.LoadDirs(root.FS(), []string{id}, dir, tok)
	if err != nil {
		return nil, err
	}
	return ls[0], nil
}

// prepareLater prepares the imported sessions loadLater reads, one by
// one, while the server serves the other lessons; one that fails is
// logged with its file, line and field, and its pages answer 404.
func prepareLater(ctx context.Context, srv *web.Server, sessions <-chan loaded, log *slog.Logger) {
	for l := range sessions {
		if ctx.Err() != nil {
			return
		}
		err := l.err
		if err == nil {
			err = srv.Add(l.lesson)
		}
		if err != nil {
			srv.Drop(l.id)
			log.Error("an imported session could not be loaded; its pages answer 404", "lesson", l.id, "err", err)
			continue
		}
		log.Info("an imported session is ready", "lesson", l.id, "took", time.Since(l.start).Round(time.Millisecond))
	}
	// What loading took is not kept; given back a moment after the last
	// session is ready, not while its first pages are asked for (it is a
	// full collection: 0.5 s of CPU after a 10,048-record session).
	select {
	case <-ctx.Done():
	case <-time.After(2 * time.Second):
		debug.FreeOSMemory()
	}
}

// openRooms opens the NATS room store at u, or returns nil (rooms in
// memory) when u is empty.
func openRooms(ctx context.Context, u string, log *slog.Logger) (store.Store, func(), error) {
	if u == "" {
		return nil, func() {}, nil
	}
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "nats" && p.Scheme != "tls") || p.Host == "" {
		return nil, nil, fmt.Errorf("-rooms %q: want nats://HOST:PORT", u)
	}
	st, err := store.OpenNATS(ctx, store.NATSConfig{URL: u, Limits: store.DefaultLimits(), Log: log})
	if err != nil {
		return nil, nil, err
	}
	return st, st.Shutdown, nil
}

// openUploads opens the NATS store uploaded sessions are shared in, on the
// rooms' NATS at u, or returns nil (each server keeps its own) when u is
// empty. openRooms checked u.
func openUploads(ctx context.Context, u string, log *slog.Logger) (uploads.Remote, func(), error) {
	if u == "" {
		return nil, func() {}, nil
	}
	st, err := uploads.OpenNATS(ctx, uploads.NATSConfig{URL: u, Log: log})
	if err != nil {
		return nil, nil, err
	}
	return st, st.Close, nil
}

// newServer loads the built-in lessons and those of dir, if given; opts
// set the rest of the server's configuration.
func newServer(dir string, log *slog.Logger, opts ...func(*web.Config)) (*web.Server, error) {
	cfg, _, err := loadLessons(dir, log, false)
	if err != nil {
		return nil, err
	}
	for _, o := range opts {
		o(&cfg)
	}
	return web.New(cfg)
}

// loadLessons is the server's configuration with the built-in lessons and
// those of dir, if given. With deferImported, the imported sessions of dir
// are not loaded but listed (by directory, which is their id), for the
// server to prepare after it listens.
func loadLessons(dir string, log *slog.Logger, deferImported bool) (web.Config, []string, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	tok, err := tokens.New()
	if err != nil {
		return web.Config{}, nil, err
	}
	lessons, err := scenarios.Load(scenarios.Builtin(), "scenarios", tok)
	if err != nil {
		return web.Config{}, nil, fmt.Errorf("built-in lessons: %w", err)
	}
	var later []string
	if dir != "" {
		root, err := os.OpenRoot(dir)
		if err != nil {
			return web.Config{}, nil, fmt.Errorf("lessons from %s: %w", dir, err)
		}
		defer root.Close()
		// A link out of dir is not followed: the lessons are what dir holds.
		fsys := root.FS()
		authored, imported, err := scenarios.Dirs(fsys)
		if err != nil {
			return web.Config{}, nil, fmt.Errorf("lessons from %s: %w", dir, err)
		}
		if len(authored)+len(imported) == 0 {
			return web.Config{}, nil, fmt.Errorf("lessons from %s: no */lesson.yaml found", dir)
		}
		now := authored
		if later = imported; !deferImported {
			now, later = append(authored, imported...), nil
		}
		extra, err := scenarios.LoadDirs(fsys, now, dir, tok)
		if err != nil {
			return web.Config{}, nil, fmt.Errorf("lessons from %s: %w", dir, err)
		}
		lessons = append(lessons, extra...)
	}
	return web.Config{Lessons: lessons, Tokens: tok, Log: log}, later, nil
}

func displayAddr(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil || host == "::" || host == "0.0.0.0" || host == "" {
		return "localhost:" + port
	}
	return net.JoinHostPort(host, port)
}
