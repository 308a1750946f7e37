package refserver

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/fault"
)

// Server-wide controls, apart from the API:
//
//	GET    /_health           no credentials: 200 {"status": "ok"} once the server answers requests
//	POST   /_simulate/reset   a merchant's key: that merchant back to its configuration (204); the admin key: every merchant and group
//	POST   /_simulate/faults  arm a fault (faults.go); GET lists the armed faults, DELETE disarms them
//
// No merchant's path names reset and the faults; they take the private key
// of any merchant of the server (HTTP Basic user, empty password) and then
// act on that merchant alone: its reset (ResetMerchant) leaves the others
// as they are, and it sees and arms faults on its own paths only. The
// admin key (Options.AdminKey, the binary's --admin-key) acts on the whole
// server: Reset, every fault. A server with no admin key has no HTTP
// control over the whole server; the Go methods (Reset, InjectFault,
// Faults, ClearFaults) are server-wide. A public key answers 1010,
// anything else 1002. On a server with one merchant the merchant's reset
// is the whole server's (as before there was more than one to keep
// apart).
//
// Reset. The server's configuration is what AddMerchant, AddGroup and
// ApplySeed made (in the binary: --merchant-id and its keys, --seed-file);
// each call is recorded as a step, with the time and the place of the id
// generators when it ran. Reset replays the steps on a fresh server built
// with the same options and then swaps that server's merchants and groups
// in: merchants, groups, keys and what seeds created come back with the
// same ids and keys, balances as configured, and everything made since
// (customers, cards, tokens, transactions, plans, subscriptions, webhooks,
// events) is gone. Deliveries queued for webhooks are dropped, armed faults
// disarmed, a fake clock goes back to where it stood when the server was
// made, and seeded id generators (Options.IDSeed) to where they stood after
// the last step, so that the same requests after a reset get the same ids
// as after the start. A merchant added later with AddMerchant (openpaytest's
// Server.AddMerchant) is configuration too: it stays, with its keys, and
// with nothing in it.
//
// Every request holds s.gate for reading while its handler runs
// (ServeHTTP); Reset builds the fresh state without it and takes it for
// writing only to swap, so a request sees the state either wholly before a
// reset or wholly after it, and a reset waits for the handlers at work.
// Nothing that waits on a client or the network runs within the gate, so
// that a reset (and the requests queued behind it) waits for work, never
// for a peer: the body is read before the request enters it
// (reqbody.Body.Preread), the answer written after it leaves, and a
// handler that makes a network call steps out for it (call.outsideGate:
// the webhook's verification event), finding on its return whether a
// reset came meanwhile. (Nothing that answers a request may call
// ServeHTTP again: a read lock taken twice deadlocks once a reset waits
// between the two.) Go methods
// called directly (PayCharge, ...) find merchants under s.mu, which the swap
// holds: one that started before acts on the state being replaced.

// ErrResetRestored is Reset's answer on a server whose state was loaded
// from a data directory: the configuration steps that made its merchants
// ran in an earlier process and are not stored (only key hashes are), so a
// rebuild would bring back nothing; rather than erase the stored merchants,
// the reset is refused. Start on an empty data directory to reset again.
var ErrResetRestored = errors.New("refserver: reset: the state was restored from a data directory, whose configuration is not kept; start on an empty directory to reset")

// configStep is one recorded configuration step.
type configStep struct {
	at          time.Time // the clock when it ran
	ids, reqIDs []byte    // the seeded generators before it ran (nil: random ones)
	apply       func(*Server) error
}

// configure runs a configuration step (given in, made out) and records it
// for Reset. A seeded server replays the step as given, from the same place
// of its id generators, so that it draws again what it drew; a random one
// replays what was made, so that the generated ids and keys stay.
func configure[T any](s *Server, given T, step func(*Server, T) (T, error)) (T, error) {
	s.configMu.Lock()
	defer s.configMu.Unlock()
	st := configStep{at: s.clock.Now(), ids: s.ids.State(), reqIDs: s.reqIDs.State()}
	made, err := step(s, given)
	if err != nil {
		return made, err
	}
	replay := made
	if st.ids != nil {
		replay = given
	}
	st.apply = func(fresh *Server) error {
		_, err := step(fresh, replay)
		return err
	}
	s.config = append(s.config, st)
	return made, nil
}

// Reset puts the server back to its configuration, as described above:
// the merchants, groups and seeds it was given, with nothing made since; a
// fake clock at its start; seeded identifiers repeating. It waits for the
// requests in progress and holds new ones until it is done. It fails, and
// changes nothing, when a step no longer replays; with a data directory
// (OpenData) the store is replaced by the reset state, and a store that
// cannot be written is an error too (the state in memory is reset then).
func (s *Server) Reset() error {
	return s.resetFrom(func(fresh *Server) error {
		s.mu.Lock()
		s.merchants, s.groups, s.merchantList = fresh.merchants, fresh.groups, fresh.merchantList
		s.merchantsRO.Store(nil)
		s.mu.Unlock()
		s.barcodes.Clear()
		s.addBarcodes(fresh)
		s.deliveries.Reset()
		s.faults.Clear(nil)
		s.ids.SetState(fresh.ids.State())
		s.reqIDs.SetState(fresh.reqIDs.State())
		if fc, ok := s.clock.(*FakeClock); ok {
			fc.Set(s.clockStart)
		}
		return nil
	})
}

// resetFrom replays the configuration on a fresh server and, with every
// request held at the gate and the clock still, lets swap take from it
// what the reset puts back; then, with a data directory, the store is
// replaced by the state swap left, before any request sees it. An error
// of swap is returned before it changes anything.
func (s *Server) resetFrom(swap func(fresh *Server) error) error {
	if s.restored.Load() {
		return ErrResetRestored
	}
	s.configMu.Lock()
	defer s.configMu.Unlock()
	fresh, err := s.rebuild()
	if err != nil {
		return err
	}
	defer fresh.Close()

	s.gate.Lock()
	defer s.gate.Unlock()
	s.advanceMu.Lock()
	defer s.advanceMu.Unlock()
	if err := swap(fresh); err != nil {
		return err
	}
	return s.SaveData()
}

// addBarcodes makes the store references fresh issued known to s.
func (s *Server) addBarcodes(fresh *Server) {
	fresh.barcodes.Range(func(ref, v any) bool {
		s.barcodes.Store(ref, v)
		return true
	})
}

// ResetMerchant puts one merchant back to its configuration, as Reset
// does for the whole server, and leaves every other merchant, the groups
// (whose customers and cards are the group's), the server's clock and the
// id generators as they are (the merchant's own clock is dropped with it:
// it follows the server's again, clock.go): the merchant's records made since are gone, its
// seeded records and opening balance are back (under the same ids when
// the server is seeded), its pending deliveries are dropped and its armed
// faults disarmed. On a server with one merchant it is Reset, clock and
// seeded ids included: there is nobody else's state to spare. It is what
// POST /_simulate/reset does with a merchant's key.
func (s *Server) ResetMerchant(id string) error {
	s.mu.RLock()
	_, known := s.merchants[id]
	alone := len(s.merchants) == 1
	s.mu.RUnlock()
	if !known {
		return fmt.Errorf("refserver: reset: merchant %q does not exist", id)
	}
	if alone {
		return s.Reset()
	}
	return s.resetFrom(func(fresh *Server) error {
		fm := fresh.merchants[id]
		if fm == nil {
			return fmt.Errorf("refserver: reset: merchant %q is not in the configuration", id)
		}
		s.mu.Lock()
		old := s.merchants[id]
		s.merchants[id] = fm
		s.merchantsRO.Store(nil)
		s.mu.Unlock()
		s.hooksMu.Lock()
		hooks := s.merchantResetHooks
		s.hooksMu.Unlock()
		for _, h := range hooks {
			h(old)
		}
		// The references fresh issued: the merchant's seeded store
		// references among them (a reference known to the server is only a
		// barcode it may draw, so the others' do no harm).
		s.addBarcodes(fresh)
		s.faults.Clear(&id)
		return nil
	})
}

// onMerchantReset registers f to run when ResetMerchant replaces a
// merchant, with the merchant replaced, under the gate (resource files
// whose state lives outside the merchant drop the merchant's part there:
// webhooks their pending deliveries).
func (s *Server) onMerchantReset(f func(old *merchant)) {
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	s.merchantResetHooks = append(s.merchantResetHooks, f)
}

// rebuild replays the configuration on a fresh server with the same
// options. The caller holds s.configMu.
func (s *Server) rebuild() (*Server, error) {
	opts := s.opts
	opts.Logger = nil
	var fc *FakeClock
	if _, ok := s.clock.(*FakeClock); ok {
		fc = NewFakeClock(s.clockStart)
		opts.Clock = fc
	}
	fresh := New(opts)
	for _, st := range s.config {
		if fc != nil {
			fc.Set(st.at)
		}
		fresh.ids.SetState(st.ids)
		fresh.reqIDs.SetState(st.reqIDs)
		if err := st.apply(fresh); err != nil {
			fresh.Close()
			return nil, fmt.Errorf("refserver: reset: %w", err)
		}
	}
	return fresh, nil
}

// registerControls registers the server-wide controls: health, reset and
// faults.
func (s *Server) registerControls(r *routeTable) {
	r.control("health", http.MethodGet, "/_health", http.StatusOK, func(*call) (any, *Error) {
		return map[string]string{"status": "ok"}, nil
	}).noAuth()
	reset := r.control("reset", http.MethodPost, "/_simulate/reset", http.StatusNoContent, func(c *call) (any, *Error) {
		reset := s.Reset
		if owner := c.controlOwner(); owner != "" {
			reset = func() error { return s.ResetMerchant(owner) }
		}
		if err := reset(); errors.Is(err, ErrResetRestored) {
			return nil, errorf(openpay.ErrInternalServer, "The state was restored from a data directory, whose configuration is not kept: start on an empty data directory to reset")
		} else if err != nil {
			return nil, errorf(openpay.ErrInternalServer, "The server's configuration could not be restored")
		}
		return nil, nil
	})
	reset.access, reset.exclusive = accessAnyMerchant, true
	r.control("armFault", http.MethodPost, "/_simulate/faults", http.StatusCreated, s.armFault).access = accessAnyMerchant
	r.control("listFaults", http.MethodGet, "/_simulate/faults", http.StatusOK, func(c *call) (any, *Error) {
		return fault.Wires(s.faults.List(c.faultOwner())), nil
	}).access = accessAnyMerchant
	r.control("clearFaults", http.MethodDelete, "/_simulate/faults", http.StatusNoContent, func(c *call) (any, *Error) {
		s.faults.Clear(c.faultOwner())
		return nil, nil
	}).access = accessAnyMerchant
}

// control registers a route that is not part of the gateway's API, with
// any method and success status (simulate registers the POST controls of
// one merchant).
func (t *routeTable) control(name, method, pattern string, status int, h handlerFunc) *route {
	if !strings.HasPrefix(pattern, "/_") {
		panic("refserver: controls live under /_: " + pattern)
	}
	rt := t.add("simulate:"+name, method, pattern, status, h)
	rt.simulation = true
	return rt
}
