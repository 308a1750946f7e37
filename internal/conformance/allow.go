package conformance

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

// Allowlist excuses known differences. Its file is text, one rule a line:
//
//	# the sandbox's store references are longer than the server's
//	createCharge     $.payment_method.reference
//	*                $[*].card.bank_name
//	getCustomer      @status
//
// A rule is an operationId (or * for any) and a path as reports show it.
// A path excuses itself and everything under it ($ excuses a whole answer,
// @status the HTTP status), and [*] matches any array index. Blank lines
// and lines starting with # are ignored.
type Allowlist struct {
	rules []allowRule
}

type allowRule struct {
	op   string
	path []string // split by pathParts
}

// ReadAllowlist reads an allowlist file.
func ReadAllowlist(path string) (*Allowlist, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a, err := ParseAllowlist(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// ParseAllowlist reads allowlist rules from r. A rule naming no
// operationId of openapi.yaml (a misspelt one would excuse nothing) is an
// error naming its line.
func ParseAllowlist(r io.Reader) (*Allowlist, error) {
	ops := newOperations()
	defer ops.close()
	known := map[string]bool{OperationWebhook: true}
	for _, rt := range ops.srv.Routes() {
		if !rt.Simulation {
			known[rt.OperationID] = true
		}
	}
	a := &Allowlist{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 || (f[1] != StatusPath && !strings.HasPrefix(f[1], "$")) {
			return nil, fmt.Errorf("line %d: want an operationId (or *) and a path starting with $ or %s", n, StatusPath)
		}
		if f[0] != "*" && !known[f[0]] {
			return nil, fmt.Errorf("line %d: %q is no operationId of openapi.yaml (the report names each exchange's operation)", n, f[0])
		}
		a.rules = append(a.rules, allowRule{op: f[0], path: pathParts(f[1])})
	}
	return a, sc.Err()
}

// Excuses reports whether a rule excuses the difference d.
func (a *Allowlist) Excuses(d Difference) bool {
	if a == nil {
		return false
	}
	parts := pathParts(d.Path)
	for _, r := range a.rules {
		if r.op != "*" && r.op != d.Operation {
			continue
		}
		if len(r.path) > len(parts) {
			continue
		}
		ok := true
		for i, p := range r.path {
			if p != parts[i] && !(p == "[*]" && strings.HasPrefix(parts[i], "[") && !strings.HasPrefix(parts[i], `["`)) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// pathParts splits a path into its steps: "$", ".name", "[0]", `["odd
// name"]`.
func pathParts(p string) []string {
	var out []string
	start := 0
	inQuote := false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '"' && (i == 0 || p[i-1] != '\\'):
			inQuote = !inQuote
		case !inQuote && (c == '.' || c == '[') && i > start:
			out = append(out, p[start:i])
			start = i
		}
	}
	return append(out, p[start:])
}
