"""A 200-tool CRM / calendar / billing library shaped like real SaaS MCP servers.

Each object has the usual create / get / update / delete / list tools (the
get, update and delete tools take an ``<object>_id``), plus the actions
such servers add (send an invoice, cancel a subscription...). Descriptions
follow the style of public catalogs (ToolSDK, GitHub's MCP server): the
create tool says what users ask for ("Schedule a meeting", "Refund a
payment"), the others name the object. Used by the CRUD-fairness tests.
"""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool

from langchain_toolsearch.catalog import tool_from_definition

__all__ = ["CRUD_DEFINITIONS", "crud_tools"]

# object -> (area, plural, what its create tool says, fields of the object)
_OBJECTS: dict[str, tuple[str, str, str, dict[str, str]]] = {
    "meeting": (
        "calendar",
        "meetings",
        "Schedule a meeting: books it on the organizer's calendar and invites the attendees.",
        {
            "title": "Meeting title",
            "start_time": "When the meeting is scheduled to start (ISO 8601)",
            "end_time": "When it ends (ISO 8601)",
            "attendees": "Email addresses of attendees",
        },
    ),
    "event": (
        "calendar",
        "events",
        "Create a calendar event such as a holiday or a deadline.",
        {"summary": "Event summary", "date": "Event date", "all_day": "Whether it lasts all day"},
    ),
    "calendar": (
        "calendar",
        "calendars",
        "Create a new calendar that events can be added to.",
        {"name": "Calendar name", "timezone": "IANA time zone", "color": "Display color"},
    ),
    "reminder": (
        "calendar",
        "reminders",
        "Set a reminder that notifies the user before something.",
        {"message": "What to remind about", "remind_at": "When to notify"},
    ),
    "room": (
        "calendar",
        "rooms",
        "Add a bookable meeting room to the office directory.",
        {"name": "Room name", "capacity": "Number of seats", "floor": "Floor"},
    ),
    "availability": (
        "calendar",
        "availabilities",
        "Publish the hours a user can be booked.",
        {"user": "User email", "weekday": "Day of week", "hours": "Bookable hours"},
    ),
    "booking": (
        "calendar",
        "bookings",
        "Book a room or a resource for a time slot.",
        {"room_id": "The room to book", "start_time": "Start", "end_time": "End"},
    ),
    "contact": (
        "crm",
        "contacts",
        "Add a new person to the CRM with name, email and phone.",
        {
            "first_name": "First name",
            "last_name": "Last name",
            "email": "Email",
            "phone": "Phone number",
        },
    ),
    "company": (
        "crm",
        "companies",
        "Add a new organization (account) to the CRM.",
        {"name": "Company name", "domain": "Web domain", "industry": "Industry"},
    ),
    "deal": (
        "crm",
        "deals",
        "Open a new sales opportunity in a pipeline stage.",
        {
            "name": "Deal name",
            "amount": "Deal value",
            "stage": "Pipeline stage",
            "close_date": "Expected close date",
        },
    ),
    "lead": (
        "crm",
        "leads",
        "Capture a new prospect who showed interest.",
        {"name": "Lead name", "source": "Where the lead came from", "email": "Email"},
    ),
    "note": (
        "crm",
        "notes",
        "Write a note on a contact, company or deal.",
        {"body": "Note text", "record_id": "Contact, company or deal it belongs to"},
    ),
    "task": (
        "crm",
        "tasks",
        "Assign a follow-up to-do to a sales rep with a due date.",
        {"subject": "Task subject", "due_date": "Due date", "owner": "Assigned user"},
    ),
    "pipeline": (
        "crm",
        "pipelines",
        "Set up a sales pipeline with its stages.",
        {"name": "Pipeline name", "stages": "Ordered stage names"},
    ),
    "tag": (
        "crm",
        "tags",
        "Define a label that records can be tagged with.",
        {"name": "Tag name", "color": "Display color"},
    ),
    "call_log": (
        "crm",
        "call logs",
        "Log a phone call with a contact and its outcome.",
        {"contact_id": "Who was called", "duration": "Minutes", "outcome": "Outcome"},
    ),
    "invoice": (
        "billing",
        "invoices",
        "Draft a new invoice for a customer with line items.",
        {
            "customer_id": "Billed customer",
            "line_items": "Items with amounts",
            "due_date": "Payment due date",
        },
    ),
    "payment": (
        "billing",
        "payments",
        "Charge a customer's card or record a received payment.",
        {
            "customer_id": "Paying customer",
            "amount": "Amount in cents",
            "currency": "ISO currency code",
        },
    ),
    "refund": (
        "billing",
        "refunds",
        "Refund a payment to the customer, in full or in part.",
        {
            "payment_id": "The payment to refund",
            "amount": "Amount in cents (default: all)",
            "reason": "Why the money is returned",
        },
    ),
    "subscription": (
        "billing",
        "subscriptions",
        "Subscribe a customer to a recurring plan.",
        {
            "customer_id": "Subscriber",
            "plan_id": "Plan to subscribe to",
            "trial_days": "Free trial length",
        },
    ),
    "customer": (
        "billing",
        "customers",
        "Register a new paying customer for billing.",
        {"email": "Billing email", "name": "Customer name", "address": "Billing address"},
    ),
    "plan": (
        "billing",
        "plans",
        "Define a price plan that customers can subscribe to.",
        {"name": "Plan name", "price": "Price per period", "interval": "month or year"},
    ),
    "coupon": (
        "billing",
        "coupons",
        "Create a discount code that reduces a price.",
        {"code": "Code customers enter", "percent_off": "Discount percentage"},
    ),
    "credit_note": (
        "billing",
        "credit notes",
        "Issue a credit note that reduces an invoice.",
        {"invoice_id": "Invoice to credit", "amount": "Credited amount"},
    ),
    "payout": (
        "billing",
        "payouts",
        "Send collected funds to the merchant's bank account.",
        {"amount": "Amount in cents", "bank_account": "Destination account"},
    ),
    "tax_rate": (
        "billing",
        "tax rates",
        "Define a tax rate applied to invoices.",
        {"percentage": "Rate in percent", "jurisdiction": "Country or state"},
    ),
    "price": (
        "billing",
        "prices",
        "Attach a price to a product in a currency.",
        {"product": "Product", "unit_amount": "Amount in cents", "currency": "Currency"},
    ),
    "attachment": (
        "calendar",
        "attachments",
        "Attach a file to a meeting invitation.",
        {"meeting_id": "The meeting", "file_url": "File location"},
    ),
    "campaign": (
        "crm",
        "campaigns",
        "Launch an email marketing campaign to a segment.",
        {"name": "Campaign name", "segment_id": "Audience", "send_at": "Send time"},
    ),
    "segment": (
        "crm",
        "segments",
        "Build a list of contacts that match filters.",
        {"name": "Segment name", "filters": "Conditions on contact fields"},
    ),
    "product": (
        "billing",
        "products",
        "Add a product or service that can be sold.",
        {"name": "Product name", "description": "What is sold"},
    ),
    "dispute": (
        "billing",
        "disputes",
        "Record a chargeback a customer raised with their bank.",
        {"payment_id": "The disputed payment", "reason": "Bank's reason code"},
    ),
    "webhook": (
        "billing",
        "webhooks",
        "Register a URL that receives billing events.",
        {"url": "Endpoint URL", "events": "Event types to send"},
    ),
}

_STATUS = {
    "invoice": ["draft", "open", "paid", "void", "uncollectible"],
    "subscription": ["active", "past_due", "canceled", "trialing"],
    "deal": ["open", "won", "lost"],
    "payment": ["succeeded", "pending", "failed"],
    "task": ["open", "completed"],
}

_EXTRA: list[tuple[str, str, dict[str, str]]] = [
    (
        "billing_send_invoice",
        "Email a finalized invoice to the customer.",
        {"invoice_id": "The invoice to send"},
    ),
    (
        "billing_void_invoice",
        "Void an open invoice so it can no longer be paid.",
        {"invoice_id": "The invoice to void"},
    ),
    (
        "billing_finalize_invoice",
        "Finalize a draft invoice so that it can be paid.",
        {"invoice_id": "The draft invoice"},
    ),
    (
        "billing_pay_invoice",
        "Pay an open invoice with the customer's saved card.",
        {"invoice_id": "The invoice to pay"},
    ),
    (
        "billing_cancel_subscription",
        "Cancel a customer's subscription at period end or now.",
        {"subscription_id": "The subscription", "at_period_end": "Wait for the period end"},
    ),
    (
        "billing_pause_subscription",
        "Pause collection on a subscription.",
        {"subscription_id": "The subscription"},
    ),
    (
        "billing_resume_subscription",
        "Resume a paused subscription.",
        {"subscription_id": "The subscription"},
    ),
    ("billing_get_balance", "Get the account's available and pending balance.", {}),
    (
        "billing_search_customers",
        "Search customers by email, name or metadata.",
        {"query": "Search text"},
    ),
    (
        "billing_apply_coupon",
        "Apply a discount coupon to a customer or subscription.",
        {"coupon_id": "The coupon", "customer_id": "The customer"},
    ),
    (
        "billing_upcoming_invoice",
        "Preview the next invoice of a subscription.",
        {"subscription_id": "The subscription"},
    ),
    ("billing_capture_payment", "Capture an authorized payment.", {"payment_id": "The payment"}),
    (
        "billing_export_report",
        "Export a revenue report as CSV for a date range.",
        {"start": "From", "end": "To"},
    ),
    (
        "calendar_find_free_slots",
        "Find times when all attendees are free.",
        {"attendees": "Email addresses", "duration": "Minutes needed"},
    ),
    (
        "calendar_respond_to_invitation",
        "Accept, decline or tentatively accept an invitation.",
        {"meeting_id": "The meeting", "response": "accept decline tentative"},
    ),
    (
        "calendar_add_attendee",
        "Invite another person to an existing meeting.",
        {"meeting_id": "The meeting", "email": "Who to invite"},
    ),
    (
        "calendar_remove_attendee",
        "Remove a person from a meeting's guest list.",
        {"meeting_id": "The meeting", "email": "Who to remove"},
    ),
    (
        "calendar_reschedule_meeting",
        "Move a meeting to a new time and notify attendees.",
        {"meeting_id": "The meeting", "start_time": "New start", "end_time": "New end"},
    ),
    (
        "calendar_share_calendar",
        "Share a calendar with a person with read or write access.",
        {"calendar_id": "The calendar", "email": "Who", "role": "reader writer"},
    ),
    (
        "calendar_get_free_busy",
        "Get busy intervals of users in a time range.",
        {"users": "Emails", "start": "From", "end": "To"},
    ),
    (
        "crm_merge_contacts",
        "Merge two duplicate contacts into one.",
        {"primary_id": "Contact to keep", "secondary_id": "Contact merged into it"},
    ),
    ("crm_search_contacts", "Search contacts by name, email or company.", {"query": "Text"}),
    ("crm_search_deals", "Search deals by name, stage or owner.", {"query": "Text"}),
    (
        "crm_move_deal_stage",
        "Move a deal to another pipeline stage.",
        {"deal_id": "The deal", "stage": "Target stage"},
    ),
    (
        "crm_convert_lead",
        "Convert a qualified lead into a contact, company and deal.",
        {"lead_id": "The lead"},
    ),
    (
        "crm_assign_owner",
        "Assign a contact, company or deal to a sales rep.",
        {"record_id": "The record", "owner": "The rep"},
    ),
    (
        "crm_add_tag",
        "Tag a contact, company or deal.",
        {"record_id": "The record", "tag_id": "Tag"},
    ),
    (
        "crm_send_email",
        "Send an email to a contact and log it on their timeline.",
        {"contact_id": "Recipient", "subject": "Subject", "body": "Body"},
    ),
    ("crm_get_timeline", "Get the activity timeline of a contact.", {"contact_id": "Contact"}),
    ("crm_import_contacts", "Import contacts from a CSV file.", {"file_url": "CSV location"}),
    ("crm_export_contacts", "Export contacts as a CSV file.", {"filter": "Which contacts"}),
    (
        "crm_forecast_revenue",
        "Forecast revenue from open deals by close date.",
        {"quarter": "Quarter"},
    ),
    (
        "crm_list_deal_stages",
        "List the stages of a sales pipeline.",
        {"pipeline_id": "The pipeline"},
    ),
    ("crm_complete_task", "Mark a follow-up task as done.", {"task_id": "The task"}),
    ("crm_get_owner", "Get a sales rep's profile.", {"owner_id": "The rep"}),
]


def _definitions() -> list[dict[str, Any]]:
    defs: list[dict[str, Any]] = []

    def add(name: str, description: str, props: dict[str, str], required: list[str]) -> None:
        properties: dict[str, Any] = {
            p: {"type": "string", "description": d} for p, d in props.items()
        }
        defs.append(
            {
                "name": name,
                "description": description,
                "inputSchema": {"type": "object", "properties": properties, "required": required},
            }
        )

    for obj, (area, plural, create_text, fields) in _OBJECTS.items():
        noun = obj.replace("_", " ")
        oid = f"{obj}_id"
        add(
            f"{area}_create_{obj}",
            f"Create a new {noun}. {create_text} Returns the created {noun} with its ID.",
            fields,
            list(fields)[:1],
        )
        id_text = f"The {noun} ID (from {area}_list_{plural.replace(' ', '_')})"
        add(f"{area}_get_{obj}", f"Get a {noun} by {noun} ID.", {oid: id_text}, [oid])
        add(
            f"{area}_update_{obj}",
            f"Update a {noun}: fields left out keep their value.",
            {oid: id_text, **fields},
            [oid],
        )
        add(
            f"{area}_delete_{obj}",
            f"Delete a {noun} by {noun} ID. This cannot be undone.",
            {oid: id_text},
            [oid],
        )
        listing = {"limit": "Maximum number of results", "cursor": "Pagination cursor"}
        if obj in _STATUS:
            listing["status"] = f"Only {plural} with this status: {' '.join(_STATUS[obj])}"
        add(f"{area}_list_{plural.replace(' ', '_')}", f"List {plural}, newest first.", listing, [])
    for name, description, props in _EXTRA:
        add(name, description, props, list(props)[:1])
    return defs


CRUD_DEFINITIONS: list[dict[str, Any]] = _definitions()
"""The definitions (MCP ``tools/list`` shape), 200 of them."""


def crud_tools() -> list[BaseTool]:
    """The library as LangChain tools (no implementation: calls return an error)."""
    return [tool_from_definition(d) for d in CRUD_DEFINITIONS]
