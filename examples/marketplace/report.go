package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/journal"
)

// SellerReport compares a seller's balance at the gateway with what the
// marketplace's settled movements say it must be.
type SellerReport struct {
	Seller string
	// Expected is charges made - commissions + commissions returned -
	// refunds - payouts + splits in - splits out.
	Expected openpay.Amount
	// Gateway is the seller's balance as the gateway reports it.
	Gateway openpay.Amount
}

// Report is the nightly check of the books: each seller's balance, and the
// movements still open (the journal's worker has not settled them yet).
type Report struct {
	Sellers []SellerReport
	// Commissions is what the platform earned: commissions taken less
	// those returned.
	Commissions openpay.Amount
	// Unknown lists the movements not settled yet (pending or unknown in
	// the journal).
	Unknown []string
}

// OK reports whether every seller's balance is the one expected and no
// movement is left unknown.
func (r Report) OK() bool {
	for _, s := range r.Sellers {
		if !s.Expected.Equal(s.Gateway) {
			return false
		}
	}
	return len(r.Unknown) == 0
}

func (r Report) String() string {
	var b strings.Builder
	for _, s := range r.Sellers {
		fmt.Fprintf(&b, "seller %s: expected %s, gateway %s\n", s.Seller, s.Expected, s.Gateway)
	}
	fmt.Fprintf(&b, "commissions %s", r.Commissions)
	if len(r.Unknown) > 0 {
		fmt.Fprintf(&b, "; unknown: %s", strings.Join(r.Unknown, ", "))
	}
	return b.String()
}

// Nightly builds the report from the marketplace's movements and the
// gateway's balances.
func (m *Marketplace) Nightly(ctx context.Context) (Report, error) {
	var r Report
	expected := map[string]openpay.Amount{}
	ops, err := m.Ops(ctx)
	if err != nil {
		return Report{}, err
	}
	for _, op := range ops {
		if op.State == journal.StatePending || op.State == journal.StateUnknown {
			r.Unknown = append(r.Unknown, op.ID)
			continue
		}
		if op.State != journal.StateMade {
			continue
		}
		switch op.Kind {
		case KindCharge:
			expected[op.Seller] = expected[op.Seller].Add(op.Amount)
		case KindCommission:
			expected[op.Seller] = expected[op.Seller].Sub(op.Amount)
			r.Commissions = r.Commissions.Add(op.Amount)
		case KindCommissionRefund:
			expected[op.Seller] = expected[op.Seller].Add(op.Amount)
			r.Commissions = r.Commissions.Sub(op.Amount)
		case KindRefund, KindPayout:
			expected[op.Seller] = expected[op.Seller].Sub(op.Amount)
		case KindSplit:
			expected[op.Seller] = expected[op.Seller].Sub(op.Amount)
			expected[op.To] = expected[op.To].Add(op.Amount)
		}
	}
	sellers, err := m.sellers(ctx)
	if err != nil {
		return Report{}, err
	}
	for _, id := range sellers {
		cu, err := m.c.Customers.Get(ctx, id)
		if err != nil {
			return Report{}, err
		}
		r.Sellers = append(r.Sellers, SellerReport{Seller: id, Expected: expected[id], Gateway: cu.Balance})
	}
	return r, nil
}
