package openpay

import (
	"context"
	"iter"
	"net/http"
)

// CustomersService manages the merchant's customers (Client.Customers).
// The services of one customer are at [Client.Customer].
type CustomersService struct{ s scope }

// Create creates a customer. With RequiresAccount the customer gets a
// balance, a CLABE and a store reference for receiving funds. An
// ExternalID already in use gives [ErrExternalIDExists].
func (cs *CustomersService) Create(ctx context.Context, req CustomerRequest, opts ...CallOption) (*Customer, error) {
	return call[Customer](ctx, scopeOf(cs), apiRequest{opts: opts, method: http.MethodPost, body: req}, "customers")
}

// Update replaces a customer's name, contact data and address.
func (cs *CustomersService) Update(ctx context.Context, customerID string, req CustomerUpdateRequest, opts ...CallOption) (*Customer, error) {
	return call[Customer](ctx, scopeOf(cs), apiRequest{opts: opts, method: http.MethodPut, body: req}, "customers", customerID)
}

// Get returns a customer.
func (cs *CustomersService) Get(ctx context.Context, customerID string, opts ...CallOption) (*Customer, error) {
	return call[Customer](ctx, scopeOf(cs), apiRequest{opts: opts, method: http.MethodGet}, "customers", customerID)
}

// Delete removes a customer for good and cancels its subscriptions; it is
// refused while the customer's balance is above zero.
//
// Beside [SubscriptionsService.Cancel]: both stop the charges at once.
// Deleting one subscription makes it gone (not found on every path, off
// every list); deleting its customer leaves each subscription cancelled,
// not gone: the customer's paths answer not found (the customer is), while
// the plan's ([PlansService.Subscriptions], [PlansService.Subscription])
// still show it, status cancelled, as the record of what was billed. The
// gateway says deleting a customer cancels its subscriptions; that they
// stay readable through the plan is the SDK's reading of "cancels".
func (cs *CustomersService) Delete(ctx context.Context, customerID string, opts ...CallOption) error {
	return callNoContent(ctx, scopeOf(cs), http.MethodDelete, opts, "customers", customerID)
}

// List iterates over the customers matching params, newest first.
func (cs *CustomersService) List(ctx context.Context, params *CustomerListParams, opts ...CallOption) iter.Seq2[*Customer, error] {
	q, err := params.query()
	return iterOf[Customer](ctx, scopeOf(cs), q, err, opts, "customers")
}

// ListPage returns one page of customers.
func (cs *CustomersService) ListPage(ctx context.Context, params *CustomerListParams, opts ...CallOption) ([]*Customer, error) {
	q, err := params.query()
	return pageOf[Customer](ctx, scopeOf(cs), q, err, opts, "customers")
}
