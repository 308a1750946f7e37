package cfdi

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseNotification(t *testing.T) {
	t.Parallel()
	body := `{
		"invoice_id": "INV-1001",
		"serie": "A",
		"folio": "1001",
		"transaction_id": "trzjaozcik8msyqshka4",
		"creation_date": "2024-05-01T12:30:00-06:00",
		"issue_date": "2024-05-01 12:31:07",
		"uuid": "5FB2822E-396D-4725-8521-CDC4BDD20CCF",
		"receiver_rfc": "CCE010203AB1",
		"total": "232.00",
		"subtotal": 200,
		"status": "OK",
		"fiscal_status": "ACTIVE",
		"cancellation_date": null,
		"public_xml_link": "https://example.com/a.xml",
		"public_pdf_link": "https://example.com/a.pdf",
		"link_expiration_date": "2024-05-31T23:59:59Z",
		"message": "",
		"a_field_added_later": {"x": [1, 2]}
	}`
	n, err := ParseNotification([]byte(body))
	require.NoError(t, err)
	assert.Equal(t, "INV-1001", n.InvoiceID)
	assert.Equal(t, "A", n.Serie)
	assert.Equal(t, "1001", n.Folio)
	assert.Equal(t, "trzjaozcik8msyqshka4", n.TransactionID)
	assert.True(t, n.CreationDate.Equal(time.Date(2024, 5, 1, 18, 30, 0, 0, time.UTC)))
	assert.True(t, n.IssueDate.Equal(time.Date(2024, 5, 1, 18, 31, 7, 0, time.UTC)), "an offset-less time is central Mexico time")
	assert.Equal(t, uuid1, n.UUID)
	assert.Equal(t, companyRFC, n.ReceiverRFC)
	assert.Equal(t, "232.00", n.Total.String())
	assert.Equal(t, "200.00", n.Subtotal.String())
	assert.Equal(t, StatusOK, n.Status)
	assert.Equal(t, FiscalStatusActive, n.FiscalStatus)
	assert.True(t, n.CancellationDate.IsZero())
	assert.Equal(t, "https://example.com/a.xml", n.PublicXMLLink)
	assert.Equal(t, "https://example.com/a.pdf", n.PublicPDFLink)
	assert.True(t, n.LinkExpirationDate.Equal(time.Date(2024, 5, 31, 23, 59, 59, 0, time.UTC)))
}

func TestParseNotificationToleratesUnknownCodes(t *testing.T) {
	t.Parallel()
	n, err := ParseNotification([]byte(`{"status":"REPROCESSING","fiscal_status":"IN_CANCELLATION"}`))
	require.NoError(t, err)
	assert.False(t, n.Status.Valid())
	assert.False(t, n.FiscalStatus.Valid())
}

func TestParseNotificationRefusesWhatIsNotANotification(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{``, `null`, ` null `, `[]`, `"x"`, `42`, `{"total": "lots"}`, `{"creation_date": "someday"}`, `{"uuid": 5}`, `{} {}`, `{`} {
		_, err := ParseNotification([]byte(bad))
		assert.Error(t, err, "%q", bad)
	}
}

func TestGenerationResponseDecodes(t *testing.T) {
	t.Parallel()
	var r GenerationResponse
	require.NoError(t, json.Unmarshal([]byte(`{"invoice_id":"INV-1","request_id":"req-9","date":"2024-05-01T12:30:00-06:00","status":"PENDING","fiscal_status":"ACTIVE","message":"queued"}`), &r))
	assert.Equal(t, GenerationResponse{
		InvoiceID: "INV-1", RequestID: "req-9", Date: r.Date, Status: StatusPending, FiscalStatus: FiscalStatusActive, Message: "queued",
	}, r)
	assert.True(t, r.Date.Equal(time.Date(2024, 5, 1, 18, 30, 0, 0, time.UTC)))
}
