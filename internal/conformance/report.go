package conformance

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// Report is the outcome of a replay: per operation in the order the
// cassette first used each, and every difference, grouped by exchange.
type Report struct {
	Operations []*OperationReport `json:"operations"`
	// Exchanges counts the exchanges replayed; Differ those with a
	// difference the allowlist does not excuse.
	Exchanges int `json:"exchanges"`
	Differ    int `json:"differ"`
	// Excused counts the differences the allowlist excused.
	Excused int `json:"excused"`
	// Differences lists the exchanges with a difference, excused or not,
	// in cassette order, each with all of its differences.
	Differences []*ExchangeReport `json:"differences"`
	// Warnings says what the replay passed over (a partial last line of
	// the cassette).
	Warnings []string `json:"warnings,omitempty"`

	byOp map[string]*OperationReport
}

// OperationReport is one operation's outcome.
type OperationReport struct {
	Operation string `json:"operation"`
	Exchanges int    `json:"exchanges"`
	Agree     bool   `json:"agree"`
	// First is the first difference the allowlist does not excuse.
	First *Difference `json:"first_difference,omitempty"`
	// Differences counts the differences not excused, Excused those
	// excused.
	Differences int `json:"differences"`
	Excused     int `json:"excused"`
}

// ExchangeReport is every difference of one exchange.
type ExchangeReport struct {
	// Seq is the exchange's seq (#N in the text report), Line its line in
	// the cassette file.
	Seq       int    `json:"seq"`
	Line      int    `json:"line"`
	Operation string `json:"operation"`
	Method    string `json:"method"`
	// Path is the recorded path (the sandbox's ids).
	Path        string         `json:"path"`
	Differences []ExcusedOrNot `json:"differences"`
	// Answer is the target's answer, scrubbed, when its status differs
	// from the recorded one: the error object says why (its error_code
	// and description).
	Answer json.RawMessage `json:"answer,omitempty"`
}

// ExcusedOrNot is a difference and whether the allowlist excused it.
type ExcusedOrNot struct {
	Difference
	Excused bool `json:"excused,omitempty"`
}

func newReport() *Report { return &Report{byOp: map[string]*OperationReport{}} }

// add records one exchange's differences, and the target's answer when
// the status differed.
func (r *Report) add(e Exchange, op string, diffs []Difference, answer json.RawMessage, allow *Allowlist) {
	o := r.byOp[op]
	if o == nil {
		o = &OperationReport{Operation: op, Agree: true}
		r.byOp[op] = o
		r.Operations = append(r.Operations, o)
	}
	o.Exchanges++
	r.Exchanges++
	if len(diffs) == 0 {
		return
	}
	x := &ExchangeReport{Seq: e.Seq, Line: e.Line, Operation: op, Method: e.Method, Path: e.Path, Answer: answer}
	differs := false
	for _, d := range diffs {
		excused := allow.Excuses(d)
		x.Differences = append(x.Differences, ExcusedOrNot{Difference: d, Excused: excused})
		if excused {
			o.Excused++
			r.Excused++
			continue
		}
		o.Differences++
		if o.First == nil {
			d := d
			o.First = &d
		}
		o.Agree, differs = false, true
	}
	r.Differences = append(r.Differences, x)
	if differs {
		r.Differ++
	}
}

// OK reports whether every operation agrees.
func (r *Report) OK() bool { return r.Differ == 0 }

// WriteText writes the report for people: a line per operation, then each
// exchange that differs with all of its differences (and the target's
// answer when the status differs), then a summary.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, o := range r.Operations {
		verdict, first := "agree", ""
		if !o.Agree {
			verdict, first = "DIFFER", o.First.String()
			if more := o.Differences - 1; more > 0 {
				first += fmt.Sprintf(" (and %d more)", more)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d exchange%s\t%s\n", verdict, o.Operation, o.Exchanges, plural(o.Exchanges), first)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, x := range r.Differences {
		fmt.Fprintf(w, "\n#%d (line %d) %s %s %s\n", x.Seq, x.Line, x.Operation, x.Method, x.Path)
		for _, d := range x.Differences {
			excused := ""
			if d.Excused {
				excused = " (excused)"
			}
			fmt.Fprintf(w, "    %s: %s: %s, recorded %s%s\n", d.Path, d.Kind, d.Replayed, d.Recorded, excused)
		}
		if len(x.Answer) > 0 {
			fmt.Fprintf(w, "    the target answered: %s\n", x.Answer)
		}
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	agree := 0
	for _, o := range r.Operations {
		if o.Agree {
			agree++
		}
	}
	if len(r.Differences) > 0 {
		fmt.Fprintln(w)
	}
	_, err := fmt.Fprintf(w, "%d operation%s, %d agree, %d differ; %d of %d exchange%s differ; %d difference%s excused by the allowlist\n",
		len(r.Operations), plural(len(r.Operations)), agree, len(r.Operations)-agree, r.Differ, r.Exchanges, plural(r.Exchanges), r.Excused, plural(r.Excused))
	return err
}

// WriteJSON writes the report as one JSON document, for CI: the summary,
// and every difference grouped by exchange.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
