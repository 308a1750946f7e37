package refserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Money is conserved: many clients move money concurrently over HTTP
// (transfers, fees, fee refunds, payouts at both scopes, payout cancels,
// settlements and failures) while an auditor reads every balance in one
// critical section, again and again. At every read the total (the merchant's
// balance, the customers' balances, the payouts in progress, whose money has
// left a balance, and the payouts settled, whose money has left the
// gateway) equals what was put in, and no balance is below zero. At the
// end every balance is rebuilt from the stored transactions alone and must
// match: no movement happened without its record, and no record without
// its movement.

const (
	conservationCustomers = 6
	conservationWorkers   = 16
	conservationOps       = 150 // per worker
)

// auditView is one consistent read of the money of a merchant.
type auditView struct {
	merchant   openpay.Amount
	customers  map[string]openpay.Amount
	inProgress openpay.Amount // payouts not yet settled, failed or cancelled
	settled    openpay.Amount // payouts completed: gone from the gateway
}

func (v auditView) total() openpay.Amount {
	t := v.merchant.Add(v.inProgress).Add(v.settled)
	for _, b := range v.customers {
		t = t.Add(b)
	}
	return t
}

// audit reads the merchant's money under its lock.
func audit(m *merchant) auditView {
	m.mu.Lock()
	defer m.mu.Unlock()
	v := auditView{merchant: m.balance.Amount(), customers: make(map[string]openpay.Amount)}
	for _, cu := range m.customers.list {
		if cu.hasAccount() {
			v.customers[cu.id()] = cu.balance.Amount()
		}
	}
	for _, t := range m.txList {
		if t.typ() != openpay.TransactionTypePayout {
			continue
		}
		switch t.status() {
		case openpay.TransactionStatusInProgress:
			v.inProgress = v.inProgress.Add(t.amount())
		case openpay.TransactionStatusCompleted:
			v.settled = v.settled.Add(t.amount())
		}
	}
	return v
}

// ledger rebuilds every balance from the stored transactions: what came in
// (bank receipts), went between balances (transfers, fees, fee refunds) and
// went out (payouts not cancelled or failed).
func ledger(m *merchant) map[string]openpay.Amount {
	m.mu.Lock()
	defer m.mu.Unlock()
	bal := map[string]openpay.Amount{}
	add := func(who string, a openpay.Amount) { bal[who] = bal[who].Add(a) }
	for _, t := range m.txList {
		a, who := t.amount(), t.customerID()
		switch t.typ() {
		case openpay.TransactionTypeCharge: // the bank receipts that funded the test
			add(who, a)
		case openpay.TransactionTypeTransfer:
			if t.opType() == openpay.OperationTypeOut {
				add(who, a.Neg())
			} else {
				add(who, a)
			}
		case openpay.TransactionTypeFee:
			add(who, a.Neg())
			add("", a)
		case openpay.TransactionTypeRefund:
			add(who, a)
			add("", a.Neg())
		case openpay.TransactionTypePayout:
			if t.status() == openpay.TransactionStatusInProgress || t.status() == openpay.TransactionStatusCompleted {
				add(who, a.Neg())
			}
		}
	}
	return bal
}

// rawCall is a request for goroutines other than the test's: it returns
// the status, the error code (0 on success) and the id of the answer.
func rawCall(client *http.Client, method, url, key string, body any) (status, code int, id string, err error) {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return 0, 0, "", err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return 0, 0, "", err
	}
	req.SetBasicAuth(key, "")
	res, err := client.Do(req)
	if err != nil {
		return 0, 0, "", err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, 0, "", err
	}
	var o struct {
		ID        string  `json:"id"`
		ErrorCode float64 `json:"error_code"`
	}
	if len(data) > 0 {
		if err := json.Unmarshal(data, &o); err != nil {
			return res.StatusCode, 0, "", fmt.Errorf("answer is not a JSON object: %q", data)
		}
	}
	return res.StatusCode, int(o.ErrorCode), o.ID, nil
}

// idPool is a set of ids the workers share.
type idPool struct {
	mu  sync.Mutex
	ids []string
}

func (p *idPool) add(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ids = append(p.ids, id)
}

func (p *idPool) pick(r *rand.Rand) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.ids) == 0 {
		return "trnone"
	}
	return p.ids[r.IntN(len(p.ids))]
}

func TestMoneyIsConservedUnderConcurrency(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	m := env.s.merchantByID(env.m.ID)
	fund(t, env, "", "5000.00")
	var customers, accounts []string
	for i := 0; i < conservationCustomers; i++ {
		cu := createCustomerHTTP(t, env, fmt.Sprintf("C%d", i), true)
		fund(t, env, cu, "1000.00")
		customers = append(customers, cu)
		acct := requireOK(t, env.post("/customers/"+cu+"/bankaccounts", map[string]any{"holder_name": "C", "clabe": clabeIXE}), 200)["id"].(string)
		accounts = append(accounts, acct)
	}
	start := audit(m)
	want := start.total()
	require.Equal(t, "11000.00", want.String())

	base := env.srv.URL + "/v1/" + env.m.ID
	simBase := env.srv.URL + "/_simulate/" + env.m.ID
	key := env.m.PrivateKey
	client := env.srv.Client()
	client.Transport.(*http.Transport).MaxIdleConnsPerHost = conservationWorkers

	var fees, payouts idPool
	var done atomic.Bool
	var audits, okOps, refusedOps atomic.Int64
	outcomes := make([]sync.Map, 1) // operation -> *atomic.Int64 of successes
	count := func(op string) {
		v, _ := outcomes[0].LoadOrStore(op, new(atomic.Int64))
		v.(*atomic.Int64).Add(1)
	}

	// The auditor reads until the workers are done.
	auditorDone := make(chan struct{})
	go func() {
		defer close(auditorDone)
		for !done.Load() {
			v := audit(m)
			audits.Add(1)
			if got := v.total(); got.Cmp(want) != 0 {
				t.Errorf("audit %d: total %s, want %s", audits.Load(), got, want)
				return
			}
			if v.merchant.Cmp(openpay.Amount{}) < 0 {
				t.Errorf("merchant balance %s below zero", v.merchant)
				return
			}
			for id, b := range v.customers {
				if b.Cmp(openpay.Amount{}) < 0 {
					t.Errorf("customer %s balance %s below zero", id, b)
					return
				}
			}
		}
	}()

	var wg sync.WaitGroup
	for w := 0; w < conservationWorkers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 7))
			amount := func(maxCents int) string {
				c := 101 + r.IntN(maxCents)
				return fmt.Sprintf("%d.%02d", c/100, c%100)
			}
			for i := 0; i < conservationOps; i++ {
				a, b := r.IntN(conservationCustomers), r.IntN(conservationCustomers)
				var op, method, url string
				var body any
				// The codes each operation may be refused with: funds short,
				// or a state another worker changed first.
				refusals := map[int]bool{}
				switch k := r.IntN(9); k {
				case 0, 1:
					if a == b {
						b = (a + 1) % conservationCustomers
					}
					op, method, url = "transfer", http.MethodPost, base+"/customers/"+customers[a]+"/transfers"
					body = map[string]any{"customer_id": customers[b], "amount": json.Number(amount(30000)), "description": "t"}
					refusals[4001] = true
				case 2:
					op, method, url = "fee", http.MethodPost, base+"/fees"
					body = map[string]any{"customer_id": customers[a], "amount": json.Number(amount(10000)), "description": "f"}
					refusals[4001] = true
				case 3:
					op, method, url = "fee refund", http.MethodPost, base+"/fees/"+fees.pick(r)+"/refund"
					refusals[4001], refusals[1003], refusals[1005] = true, true, true
				case 4:
					op, method, url = "customer payout", http.MethodPost, base+"/customers/"+customers[a]+"/payouts"
					body = map[string]any{"method": "bank_account", "destination_id": accounts[a], "amount": json.Number(amount(6000)), "description": "p"}
					refusals[4001] = true
				case 5:
					op, method, url = "merchant payout", http.MethodPost, base+"/payouts"
					body = map[string]any{"method": "bank_account", "destination_id": accounts[a], "amount": json.Number(amount(8000)), "description": "p"}
					refusals[4001] = true
				case 6:
					op, method, url = "payout cancel", http.MethodDelete, base+"/payouts/"+payouts.pick(r)
					refusals[1003], refusals[1005] = true, true
				case 7:
					op, method, url = "payout settle", http.MethodPost, simBase+"/payouts/"+payouts.pick(r)+"/settle"
					refusals[1003], refusals[1005] = true, true
				default:
					op, method, url = "payout fail", http.MethodPost, simBase+"/payouts/"+payouts.pick(r)+"/fail"
					refusals[1003], refusals[1005] = true, true
				}
				status, code, id, err := rawCall(client, method, url, key, body)
				switch {
				case err != nil:
					t.Errorf("%s: %v", op, err)
					return
				case status == http.StatusOK:
					okOps.Add(1)
					count(op)
					switch op {
					case "fee":
						fees.add(id)
					case "customer payout", "merchant payout":
						payouts.add(id)
					}
				case refusals[code]:
					refusedOps.Add(1)
				default:
					t.Errorf("%s: status %d, code %d", op, status, code)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	done.Store(true)
	<-auditorDone

	end := audit(m)
	assert.Equal(t, want.String(), end.total().String())
	// Rebuild every balance from the transactions.
	rebuilt := ledger(m)
	assert.Equal(t, end.merchant.String(), rebuilt[""].String(), "merchant")
	for id, b := range end.customers {
		assert.Equal(t, b.String(), rebuilt[id].String(), "customer %s", id)
	}
	total := int64(conservationWorkers * conservationOps)
	assert.Equal(t, total, okOps.Load()+refusedOps.Load())
	// The run must have exercised the interesting paths, not only refusals.
	outcomes[0].Range(func(k, v any) bool {
		t.Logf("%-16s %d succeeded", k, v.(*atomic.Int64).Load())
		return true
	})
	for _, op := range []string{"transfer", "fee", "fee refund", "customer payout", "merchant payout", "payout cancel", "payout settle", "payout fail"} {
		v, ok := outcomes[0].Load(op)
		if assert.True(t, ok, "no %s succeeded", op) {
			assert.Positive(t, v.(*atomic.Int64).Load(), op)
		}
	}
	assert.Greater(t, audits.Load(), int64(10), "the auditor read while the workers ran")
	t.Logf("%d workers, %d operations (%d succeeded, %d refused as expected), %d audits; settled %s, in progress %s",
		conservationWorkers, total, okOps.Load(), refusedOps.Load(), audits.Load(), end.settled, end.inProgress)
}

// TestAuditCatchesAMovementWithoutItsRecord keeps the conservation test
// honest: money that moves outside the rules breaks the total, and a
// balance changed without a transaction breaks the ledger.
func TestAuditCatchesAMovementWithoutItsRecord(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	m := env.s.merchantByID(env.m.ID)
	cu := createCustomerHTTP(t, env, "Ana", true)
	fund(t, env, cu, "10.00")
	before := audit(m).total()
	m.mu.Lock()
	m.customers.lookup(cu).credit(openpay.MustAmount("0.01"))
	m.mu.Unlock()
	assert.NotEqual(t, before.String(), audit(m).total().String())
	assert.NotEqual(t, audit(m).customers[cu].String(), ledger(m)[cu].String())
}
