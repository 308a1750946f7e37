package openpay

import (
	"context"
	"fmt"
	"net/http"
	neturl "net/url"
	"slices"
)

// scope is where a service's paths start: the merchant
// (/v1/{merchant_id}) or one of its customers
// (/v1/{merchant_id}/customers/{customer_id}). Merchant and customer
// services share one implementation; only the prefix differs.
type scope struct {
	c      *Client
	prefix []string
}

// url returns the full URL (without query) of a path below the scope.
func (s scope) url(parts ...string) (string, error) {
	return buildURL(s.c.baseURL, s.prefix, parts)
}

// CustomerScope holds the services of one customer: the same operations as
// at the merchant level, on the customer's own cards, charges, payouts,
// transfers, bank accounts and subscriptions. Get one with
// [Client.Customer]; it is cheap, make one per use.
type CustomerScope struct {
	// ID is the customer's id.
	ID string

	Charges       *ChargesService
	Payouts       *PayoutsService
	Transfers     *TransfersService
	Cards         *CardsService
	BankAccounts  *BankAccountsService
	Subscriptions *SubscriptionsService
}

// Customer returns the services scoped to one customer. An invalid id is
// reported by the first call.
func (c *Client) Customer(customerID string) *CustomerScope {
	s := scope{c: c, prefix: []string{"v1", c.merchantID, "customers", customerID}}
	return &CustomerScope{
		ID:            customerID,
		Charges:       &ChargesService{s: s},
		Payouts:       &PayoutsService{s: s},
		Transfers:     &TransfersService{s: s},
		Cards:         &CardsService{s: s},
		BankAccounts:  &BankAccountsService{s: s},
		Subscriptions: &SubscriptionsService{s: s},
	}
}

// initServices wires the merchant-level services.
func (c *Client) initServices() {
	s := scope{c: c, prefix: []string{"v1", c.merchantID}}
	c.Charges = &ChargesService{s: s}
	c.Payouts = &PayoutsService{s: s}
	c.Fees = &FeesService{s: s}
	c.Cards = &CardsService{s: s}
	c.Customers = &CustomersService{s: s}
	c.Plans = &PlansService{s: s}
	c.Tokens = &TokensService{s: s}
	c.Webhooks = &WebhooksService{s: s}
	c.Merchant = &MerchantService{s: s}
	c.Stores = &StoresService{c: c}
}

// call sends one request to a path below the scope and decodes the answer
// into a new T (nil T for calls answered with no body).
func call[T any](ctx context.Context, s scope, r apiRequest, parts ...string) (*T, error) {
	u, err := s.url(parts...)
	if err != nil {
		return nil, err
	}
	r.url = u
	var out T
	if err := s.c.send(ctx, r, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// callNoContent sends a request answered with an empty body (deletes,
// verification).
func callNoContent(ctx context.Context, s scope, method string, parts ...string) error {
	u, err := s.url(parts...)
	if err != nil {
		return err
	}
	return s.c.send(ctx, apiRequest{method: method, url: u}, nil)
}

// pageOf fetches one page of the list at parts.
func pageOf[T any](ctx context.Context, s scope, q neturl.Values, err error, parts ...string) ([]T, error) {
	if err != nil {
		return nil, err
	}
	u, err := s.url(parts...)
	if err != nil {
		return nil, err
	}
	return listPage[T](ctx, s.c, u, q)
}

// iterOf iterates over the whole list at parts.
func iterOf[T any](ctx context.Context, s scope, q neturl.Values, err error, parts ...string) func(yield func(*T, error) bool) {
	u, perr := s.url(parts...)
	if err == nil {
		err = perr
	}
	return listAll[T](ctx, s.c, u, q, err)
}

// txExpectation is what a state-changing request carrying an order_id
// expects of the transaction it creates; it decides whether a transaction
// found by order_id after a retry is this request's own.
type txExpectation struct {
	orderID  string
	amount   Amount
	currency Currency
	method   TransactionMethod
	txType   TransactionType
}

func (w txExpectation) matches(tx *Transaction) bool {
	cur := w.currency
	if cur == "" {
		cur = CurrencyMXN
	}
	return tx.OrderID == w.orderID && tx.Amount.Equal(w.amount) && Currency(tx.Currency) == cur &&
		tx.Method == w.method && (w.txType == "" || tx.TransactionType == w.txType)
}

// OrderConflictError is returned when a retried request that carries an
// order_id met a duplicate order_id (1006) after an earlier attempt may have
// reached the gateway, and the transaction found with that order_id is not
// the one the request describes (different amount, currency, method or
// type), or none could be found. It unwraps to the gateway's 1006 error, so
// errors.Is(err, ErrDuplicateOrderID) holds.
type OrderConflictError struct {
	OrderID string
	// Existing is the transaction holding the order_id, nil when the
	// lookup found none.
	Existing *Transaction
	// Err is the gateway's duplicate-order error.
	Err *Error
}

// Error describes the conflict. The transaction's fields come from the
// server and are shown redacted and cut, like every server text in an error.
func (e *OrderConflictError) Error() string {
	if e.Existing == nil {
		return fmt.Sprintf("openpay: order_id %.100q is taken, and no transaction with it could be found after a retry", e.OrderID)
	}
	return fmt.Sprintf("openpay: order_id %.100q belongs to transaction %s (%s %s %s), which differs from this request",
		e.OrderID, shown(e.Existing.ID), shown(string(e.Existing.Method)), shown(e.Existing.Amount.String()), shown(e.Existing.Currency))
}

// Unwrap returns the gateway's duplicate-order error.
func (e *OrderConflictError) Unwrap() error { return e.Err }

// createTx sends a state-changing request that creates a transaction. When
// it carries an order_id the transport may retry it after an unknown
// outcome, and a retry that meets 1006 is resolved by reconcileTx: the
// transaction this request created is returned as if the first attempt
// had answered.
func createTx(ctx context.Context, s scope, r apiRequest, want txExpectation, opts []CallOption, parts ...string) (*Transaction, error) {
	u, err := s.url(parts...)
	if err != nil {
		return nil, err
	}
	r.method, r.url = http.MethodPost, u
	if want.orderID != "" {
		r.reconcilable, r.want = true, want
	}
	var tx Transaction
	if err := s.c.send(ctx, r, &tx, opts...); err != nil {
		return nil, err
	}
	return &tx, nil
}

// reconcileTx looks up, in the collection at url, the transaction holding
// want's order_id after a retried request met a duplicate order_id (dup).
// It fills out (a *Transaction) when that transaction is the request's own.
func (c *Client) reconcileTx(ctx context.Context, url string, want txExpectation, dup *Error, out any) error {
	// The order_id filter narrows the search where the list supports it;
	// the match is checked here either way, among the newest transactions.
	q := neturl.Values{"order_id": {want.orderID}, "limit": {"100"}}
	page, err := listPage[Transaction](ctx, c, url, q)
	if err != nil {
		return fmt.Errorf("openpay: looking up order_id after a retry: %w (after %w)", err, dup)
	}
	for i := range page {
		if page[i].OrderID != want.orderID {
			continue
		}
		if !want.matches(&page[i]) {
			return &OrderConflictError{OrderID: want.orderID, Existing: &page[i], Err: dup}
		}
		tx, ok := out.(*Transaction)
		if !ok {
			return fmt.Errorf("openpay: internal error: reconciling into %T (after %w)", out, dup)
		}
		*tx = page[i]
		return nil
	}
	return &OrderConflictError{OrderID: want.orderID, Err: dup}
}

// GroupScope holds the services of a merchant group: a group's own
// customers and their cards, and charges and subscriptions of the group's
// merchants. Build the Client with the group's credentials and get a scope
// with [Client.Group]. The gateway offers only some operations at group
// level; see openapi.yaml (operations named ...Group...).
type GroupScope struct {
	// ID is the group's id.
	ID string
	// Customers are the group's customers (/v1/groups/{group_id}/customers).
	Customers *CustomersService

	s scope
}

// Group returns the services of a merchant group.
func (c *Client) Group(groupID string) *GroupScope {
	s := scope{c: c, prefix: []string{"v1", "groups", groupID}}
	return &GroupScope{ID: groupID, Customers: &CustomersService{s: s}, s: s}
}

// GroupCustomerScope holds the services of one customer of a group.
type GroupCustomerScope struct {
	Cards *CardsService
}

// Customer returns the services of one of the group's customers.
func (g *GroupScope) Customer(customerID string) *GroupCustomerScope {
	s := scope{c: g.s.c, prefix: slices.Concat(g.s.prefix, []string{"customers", customerID})}
	return &GroupCustomerScope{Cards: &CardsService{s: s}}
}

// GroupMerchantScope holds the services of one merchant of a group.
type GroupMerchantScope struct {
	Charges *ChargesService

	s scope
}

// Merchant returns the services of one of the group's merchants.
func (g *GroupScope) Merchant(merchantID string) *GroupMerchantScope {
	s := scope{c: g.s.c, prefix: slices.Concat(g.s.prefix, []string{"merchants", merchantID})}
	return &GroupMerchantScope{Charges: &ChargesService{s: s}, s: s}
}

// GroupMerchantCustomerScope holds the services of one customer of a
// group's merchant.
type GroupMerchantCustomerScope struct {
	Charges       *ChargesService
	Subscriptions *SubscriptionsService
}

// Customer returns the services of one customer of the group's merchant.
func (m *GroupMerchantScope) Customer(customerID string) *GroupMerchantCustomerScope {
	s := scope{c: m.s.c, prefix: slices.Concat(m.s.prefix, []string{"customers", customerID})}
	return &GroupMerchantCustomerScope{Charges: &ChargesService{s: s}, Subscriptions: &SubscriptionsService{s: s}}
}
