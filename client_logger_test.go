package openpay

import (
	"io"
	"log/slog"
	"testing"
)

// Client.Logger hands the logger given with WithLogger to packages built
// on the SDK (the journal logs its settles there); nil without one, and on
// a nil client.
func TestClientLogger(t *testing.T) {
	l := slog.New(slog.NewTextHandler(io.Discard, nil))
	c, err := New("mzdtln0bmtms6o3kck8f", "sk_e568c42a6c384b7ab02cd47d2e407cab", WithLogger(l))
	if err != nil {
		t.Fatal(err)
	}
	if c.Logger() != l {
		t.Fatal("Logger is not the one given with WithLogger")
	}
	plain, err := New("mzdtln0bmtms6o3kck8f", "sk_e568c42a6c384b7ab02cd47d2e407cab")
	if err != nil {
		t.Fatal(err)
	}
	if plain.Logger() != nil {
		t.Fatal("a client without WithLogger has a logger")
	}
	var none *Client
	if none.Logger() != nil {
		t.Fatal("a nil client has a logger")
	}
}
