package conformance

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// Report is the outcome of a replay, per operation in the order the
// cassette first used each.
type Report struct {
	Operations []*OperationReport `json:"operations"`
	// Exchanges counts the exchanges replayed; Differ those with a
	// difference the allowlist does not excuse.
	Exchanges int `json:"exchanges"`
	Differ    int `json:"differ"`
	// Excused counts the differences the allowlist excused.
	Excused int `json:"excused"`

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

func newReport() *Report { return &Report{byOp: map[string]*OperationReport{}} }

// add records one exchange's differences.
func (r *Report) add(op string, diffs []Difference, allow *Allowlist) {
	o := r.byOp[op]
	if o == nil {
		o = &OperationReport{Operation: op, Agree: true}
		r.byOp[op] = o
		r.Operations = append(r.Operations, o)
	}
	o.Exchanges++
	r.Exchanges++
	differs := false
	for _, d := range diffs {
		if allow.Excuses(d) {
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
	if differs {
		r.Differ++
	}
}

// OK reports whether every operation agrees.
func (r *Report) OK() bool { return r.Differ == 0 }

// WriteText writes the report for people: a line per operation, then a
// summary.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, o := range r.Operations {
		verdict, first := "agree", ""
		if !o.Agree {
			verdict, first = "DIFFER", o.First.String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%d exchange%s\t%s\n", verdict, o.Operation, o.Exchanges, plural(o.Exchanges), first)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	agree := 0
	for _, o := range r.Operations {
		if o.Agree {
			agree++
		}
	}
	_, err := fmt.Fprintf(w, "%d operation%s, %d agree, %d differ; %d of %d exchange%s differ; %d difference%s excused by the allowlist\n",
		len(r.Operations), plural(len(r.Operations)), agree, len(r.Operations)-agree, r.Differ, r.Exchanges, plural(r.Exchanges), r.Excused, plural(r.Excused))
	return err
}

// WriteJSON writes the report as one JSON document, for CI.
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
