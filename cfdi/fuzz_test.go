package cfdi

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzValidate decodes arbitrary JSON into a request and validates it. It
// must never panic; a failure must be a *ValidationError with complete
// violations; and a request that passes must encode, decode back and pass
// again, encoding the same.
func FuzzValidate(f *testing.F) {
	full, err := json.Marshal(fullRequest())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(full)
	f.Add([]byte(`{}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"conceptos":[{"cantidad":"1e40","valor_unitario":"1e-40","importe":1}],"total":-0.001}`))
	f.Add([]byte(`{"receptor":{"rfc":"ÑA&010203AB1","pais":"USA"},"moneda":"MXN","tipo_de_cambio":"1.000"}`))
	f.Add([]byte(`{"complements":{"payouts":{"fecha_pago":"9999-12-31T23:59:59-14:00","docto_relacionados":[{"imp_saldo_ant":1}]},"donatarias":{"fecha_autorizacion":"2020-02-29"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var r GenerationRequest
		if json.Unmarshal(data, &r) != nil {
			return
		}
		err := r.Validate()
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Violations) == 0 {
				t.Fatalf("Validate returned %v, not a *ValidationError with violations", err)
			}
			for _, v := range ve.Violations {
				if v.Rule == "" || v.Message == "" {
					t.Fatalf("incomplete violation %+v", v)
				}
			}
			_ = err.Error()
			return
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("a valid request does not encode: %v", err)
		}
		var back GenerationRequest
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("a valid request does not decode back: %v\n%s", err, b)
		}
		if err := back.Validate(); err != nil {
			t.Fatalf("a valid request is invalid after a round trip: %v\n%s", err, b)
		}
		b2, err := json.Marshal(back)
		if err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("round trip changed the request (%v):\n%s\n%s", err, b, b2)
		}
	})
}

// FuzzDecodeNotification decodes arbitrary bytes as a notification. It must
// never panic, and a notification that decodes and encodes must decode back
// to one that encodes the same.
func FuzzDecodeNotification(f *testing.F) {
	f.Add([]byte(`{"invoice_id":"INV-1","creation_date":"2024-05-01T12:30:00-06:00","issue_date":"2024-05-01 12:31:07","total":"232.00","subtotal":200,"status":"OK","fiscal_status":"ACTIVE","cancellation_date":null,"link_expiration_date":"2024-05-31"}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"total":"1e999999999"}`))
	f.Add([]byte(`{"creation_date":"0001-01-01T00:00:00+00:00","issue_date":"9999-12-31T23:59:59.999999999-0559"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := ParseNotification(data)
		if err != nil {
			return
		}
		b, err := json.Marshal(n)
		if err != nil {
			return // an amount with more than two decimals is read, never sent
		}
		back, err := ParseNotification(b)
		if err != nil {
			t.Fatalf("an encoded notification does not decode: %v\n%s", err, b)
		}
		b2, err := json.Marshal(back)
		if err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("round trip changed the notification (%v):\n%s\n%s", err, b, b2)
		}
	})
}
