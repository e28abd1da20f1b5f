'use strict';
// A stateful simulator of the Messaging Service API v3 (../shared/api-spec.md) for tests, the
// demo and benchmarks. Two HTTP servers, like the two documented hosts: the API host (Sender IDs,
// lists) and the send host. Control endpoints under /__sim/ on the API host (no auth) let a test
// or a person inspect what arrived, inject faults and set a message's delivery status
// (POST /__sim/sms/<id>/status {"status": "FAILED"}); GET /__sim/inbox is a page of the SMS it
// accepted, newest first (test/simulator/inbox.js). With `deliveryDelayMs`, sent messages are
// delivered (or fail) on their own after that delay. With `tls: true` both hosts serve HTTPS
// with a throwaway self-signed certificate for 127.0.0.1 and localhost.
const http = require('node:http');
const https = require('node:https');
const fs = require('node:fs');
const os = require('node:os');
const nodePath = require('node:path');
const { execFileSync } = require('node:child_process');
const { randomUUID } = require('node:crypto');

const { inboxLine, inboxPage } = require('./inbox');

const PREFIX = '/api/v3';
const PURPOSES = ['TRANSACTIONAL', 'PROMOTIONAL', 'NOTIFICATION'];
const ACCESS = ['PRIVATE', 'PUBLIC'];
const SMS_STATUSES = ['DELIVERED', 'SENT', 'FAILED', 'PENDING'];
// The spec does not name the state after approval; the simulator calls it APPROVED.
const APPROVED = 'APPROVED';
const REASONS = {
	200: 'OK',
	201: 'CREATED',
	202: 'ACCEPTED',
	400: 'BAD_REQUEST',
	401: 'UNAUTHORIZED',
	402: 'PAYMENT_REQUIRED',
	403: 'FORBIDDEN',
	404: 'NOT_FOUND',
	405: 'METHOD_NOT_ALLOWED',
	422: 'UNPROCESSABLE_ENTITY',
	429: 'TOO_MANY_REQUESTS',
	500: 'INTERNAL_SERVER_ERROR',
	502: 'BAD_GATEWAY',
	503: 'SERVICE_UNAVAILABLE',
	504: 'GATEWAY_TIMEOUT',
	520: 'WEB_SERVER_RETURNED_AN_UNKNOWN_ERROR',
	521: 'WEB_SERVER_IS_DOWN',
	522: 'CONNECTION_TIMED_OUT',
	523: 'ORIGIN_IS_UNREACHABLE',
	524: 'A_TIMEOUT_OCCURRED',
};

// What the simulated API charges per message. Written apart from the node's estimate
// (nodes/SmsMessaging/resources/sms/send/smsParts.ts), which tests compare with these charges; it must never
// share code with it. GSM 03.38, character by character from the 3GPP TS 23.038 table: printable
// ASCII except ` and the extension characters, line feed, carriage return, and the accented and
// Greek letters listed below take one septet; the extension table (form feed ^ { } \ [ ~ ] | €)
// takes two. Any other character sends the whole message as UCS-2, counted in UTF-16 code units.
const GSM7_ONE_SEPTET =
	/^[\n\r !"#$%&'()*+,\-./0-9:;<=>?@A-Z_a-z£¥èéùìòÇØøÅåΔΦΓΛΩΠΨΣΘΞÆæßÉ¤¡ÄÖÑÜ§¿äöñüà]$/u;
const GSM7_TWO_SEPTETS = /^[\f^{}\\[~\]|€]$/u;
// The most septets / code units that fit in 1, 2, 3… parts, worked out by hand: one part holds
// 160 GSM-7 septets or 70 UCS-2 units; a split message loses 7 septets / 3 units per part to the
// concatenation header, so 153 or 67 per part (2 × 153 = 306, 3 × 153 = 459…).
const PART_LIMITS = {
	'GSM-7': [160, 306, 459, 612, 765, 918, 1071, 1224, 1377, 1530],
	'UCS-2': [70, 134, 201, 268, 335, 402, 469, 536, 603, 670],
};

/**
 * A time this API wrote, in ms, counted in the API's own days: without an offset it is the API's
 * local time (UTC with `localDateTimes`, its zone with `apiZoneOffsetMinutes`), read as it
 * stands; with one, moved into the API's zone (`offsetMinutes`), so that a day filter compares
 * local dates as a service on a server in that zone does. On any host.
 */
function localMs(text, offsetMinutes = 0) {
	if (!/(Z|[+-]\d{2}:?\d{2})$/i.test(text)) return Date.parse(`${text}Z`);
	return Date.parse(text) + offsetMinutes * 60_000;
}

/** Credits the simulated API charges for one message: one per part. */
function smsParts(text) {
	let encoding = 'GSM-7';
	let size = 0;
	for (const char of text) {
		if (GSM7_ONE_SEPTET.test(char)) size += 1;
		else if (GSM7_TWO_SEPTETS.test(char)) size += 2;
		else {
			encoding = 'UCS-2';
			break;
		}
	}
	if (encoding === 'UCS-2') size = text.length;
	const limits = PART_LIMITS[encoding];
	const parts = limits.findIndex((limit) => size <= limit) + 1;
	if (parts > 0) return parts;
	// Past the table, every further part holds as much as the step between its last two rows.
	const step = limits[limits.length - 1] - limits[limits.length - 2];
	return limits.length + Math.ceil((size - limits[limits.length - 1]) / step);
}

function seededRandom(seed) {
	let state = seed >>> 0;
	return () => {
		state = (state * 1664525 + 1013904223) >>> 0;
		return state / 2 ** 32;
	};
}

/**
 * A fresh self-signed key and certificate for 127.0.0.1 and localhost, made with the openssl CLI
 * in a temporary folder that is removed again (nothing is committed or kept).
 * @returns {{ key: string, cert: string }}
 */
function selfSignedCertificate() {
	const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'sim-tls-'));
	try {
		const key = nodePath.join(dir, 'key.pem');
		const cert = nodePath.join(dir, 'cert.pem');
		execFileSync(
			process.env.OPENSSL || 'openssl',
			[
				'req',
				'-x509',
				'-newkey',
				'rsa:2048',
				'-nodes',
				'-sha256',
				'-days',
				'1',
				'-subj',
				'/CN=127.0.0.1',
				'-addext',
				'subjectAltName=IP:127.0.0.1,DNS:localhost',
				'-keyout',
				key,
				'-out',
				cert,
			],
			{ stdio: 'ignore' },
		);
		return { key: fs.readFileSync(key, 'utf8'), cert: fs.readFileSync(cert, 'utf8') };
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

const FIRST = ['Amina', 'Brian', 'Chen', 'Dana', 'Elif', 'Femi', 'Grace', 'Hugo', 'Ines', 'Jomo'];
const LAST = ['Otieno', 'Smith', 'Wang', 'Kariuki', 'Yilmaz', 'Adeyemi', 'Mwangi', 'Martin'];

class Simulator {
	/**
	 * @param {object} [options]
	 * @param {string} [options.token] the valid API token
	 * @param {string[]} [options.otherTokens] further valid API tokens of the same account (a second
	 *   API key), so that a test can tell which client made a request by the token it sent
	 * @param {number} [options.balance] credits of the account
	 * @param {boolean} [options.admin] whether the token belongs to an admin account (userId filter)
	 * @param {number} [options.smsRecords] seeded SMS records
	 * @param {number} [options.contacts] seeded contacts (every seventh one soft-deleted)
	 * @param {boolean} [options.sendOnApiHost] also serve the send endpoint on the API host
	 * @param {boolean} [options.tls] serve HTTPS with a self-signed certificate (see `certificate`)
	 * @param {number} [options.deliveryDelayMs] messages sent through the send host leave SENT this
	 *   long after sending: DELIVERED (with `deliveredAt`) or, at `failureRate`, FAILED. Without it
	 *   they stay SENT until setSmsStatus() moves them.
	 * @param {number} [options.failureRate] share of sent messages that end FAILED (default 0.2)
	 * @param {number} [options.latencyMs] how long every API request waits before it is handled,
	 *   like an API far away on the network (see `latencyMs`)
	 * @param {boolean} [options.startDateAfterDay] read `start-date` as the spec's words say,
	 *   "messages sent after this date": from the end of that day (00:00 UTC of the next day)
	 * @param {boolean} [options.localDateTimes] write every time as a Java service writes a
	 *   LocalDateTime: UTC, without an offset (2026-11-27T09:30:00.123); the wrapper's timestamp
	 *   stays UTC with Z (spec 2.1)
	 * @param {boolean} [options.normaliseText] store and echo each sent text as a service that
	 *   normalises it: Unicode NFC, CRLF as LF, no spaces around it
	 * @param {number} [options.firstSentId] the lowest id a message sent through the send host (or
	 *   added) gets, above the seeded ones: `npm start` passes one more than the last id it gave, so
	 *   that ids never repeat across its restarts, as a real API never reuses them
	 * @param {(sms: {id: number, senderId: string, number: string, message: string, at: string}) => void} [options.onMessage]
	 *   called with every SMS the send host accepts, as it enters the inbox (see inboxLine())
	 */
	constructor(options = {}) {
		this.options = {
			token: 'sim-token',
			balance: 100000,
			admin: true,
			smsRecords: 57,
			contacts: 23,
			failureRate: 0.2,
			...options,
		};
		/** @type {http.Server[]} */
		this.servers = [];
		this.token = this.options.token;
		this.admin = this.options.admin;
		this.balance = this.options.balance;
		/**
		 * Every request that reached an API endpoint, in order.
		 * @type {{host: 'api'|'send', method: string, path: string, query: Record<string, string|string[]>,
		 *   rawQuery: string, at: number, arrivedAt: number, headers: http.IncomingHttpHeaders, body: any, status: number|'reset'|undefined}[]}
		 */
		this.requests = [];
		/** @type {any[]} */
		this.faults = [];
		/**
		 * Milliseconds every request to an API endpoint waits before it is handled (recorded,
		 * processed, answered): a network round trip. Control requests under /__sim/ do not wait.
		 * Settable at any time; reset() restores the constructor's value.
		 */
		this.latencyMs = 0;
		/** Answers held back by a delayMs fault: cancelled by reset() and stop(). */
		this.pending = new Set();
		/**
		 * With `tls`: the self-signed certificate (PEM) the hosts present, made by start().
		 * @type {string | undefined}
		 */
		this.certificate = undefined;
		/** @type {any[]} */
		this.senderIds = [];
		/** @type {any[]} */
		this.sms = [];
		/** @type {any[]} */
		this.contacts = [];
		/** @type {string[]} */
		this.campaigns = [];
		/**
		 * Every SMS the send host accepted, in order: what GET /__sim/inbox lists.
		 * @type {{id: number, senderId: string, number: string, message: string, at: string}[]}
		 */
		this.inbox = [];
		/**
		 * Sent messages still SENT, by id: when they leave SENT and for which status.
		 * @type {Map<number, {at: number, status: 'DELIVERED'|'FAILED'}>}
		 */
		this.deliveries = new Map();
		/** Counts status changes, so that a cached list is never served after one. */
		this.revision = 0;
		/**
		 * Lists answer without `totalElements` and `totalPages`, as a gateway in front of the API or
		 * another version of it may (`last` stays). Settable at any time; reset() clears it.
		 */
		this.omitTotals = false;
		/**
		 * Records equal in the SMS list's sort field keep the order they were added in (lowest id
		 * first) in both directions, as a stable sort by that field alone does; by default ties are
		 * broken by id in the list's direction. Settable at any time; reset() clears it.
		 */
		this.tiesInAddedOrder = false;
		/**
		 * The SMS list's order when a request names none (spec 4.4: `[id, desc]`); `['sentAt',
		 * 'desc']` is an API that lists by creation date, as its contacts list does (spec 4.5).
		 * Settable at any time; reset() restores it.
		 */
		this.defaultSmsSort = ['id', 'desc'];
		/**
		 * The sentAt of the messages `arriveDuringReads` adds: undefined for the time they arrive,
		 * null for queued ones that have none yet, or a given time (the last message's, to the
		 * millisecond). Settable at any time; reset() clears it.
		 * @type {string | null | undefined}
		 */
		this.arrivalSentAt = undefined;
		/**
		 * Ids of messages the SMS lists leave out for now: accepted, not listed yet (a commit that
		 * lands after a newer one's, a lagging replica). GET /sms/{id} still finds them.
		 * @type {Set<number>}
		 */
		this.unlisted = new Set();
		/**
		 * The API's time zone, in minutes east of UTC (180: Africa/Nairobi), or undefined: every
		 * time it writes (sentAt, deliveredAt, createdAt… in lists and answers) is then its local
		 * time without an offset, as a Java service writing LocalDateTime on a server set to its
		 * country's time does, and its day filters count its local days; the wrapper's `timestamp`
		 * stays UTC (spec 2.1). Set it before adding records. reset() clears it.
		 * @type {number | undefined}
		 */
		this.apiZoneOffsetMinutes = undefined;
		this.nextId = { senderId: 1, sms: 1, contact: 1 };
		this.baseUrl = '';
		this.sendBaseUrl = '';
		this.sendPort = 0;
		this.generation = 0;
		/** @type {{key: string, rows: any[]} | undefined} */
		this.cache = undefined;
		this.reset();
	}

	/** Back to the seeded state: data, balance, request log and faults. */
	reset() {
		const { balance, smsRecords, contacts } = this.options;
		this.token = this.options.token;
		this.admin = this.options.admin;
		this.balance = balance;
		this.requests = [];
		this.faults = [];
		this.latencyMs = this.options.latencyMs ?? 0;
		this.cancelPending();
		this.generation = (this.generation ?? 0) + 1;
		this.nextId = { senderId: 1, sms: 1, contact: 1 };
		this.senderIds = [];
		this.sms = [];
		this.contacts = [];
		this.inbox = [];
		this.deliveries = new Map();
		this.revision = 0;
		this.omitTotals = false;
		this.tiesInAddedOrder = false;
		this.defaultSmsSort = ['id', 'desc'];
		this.arrivalSentAt = undefined;
		this.unlisted = new Set();
		this.apiZoneOffsetMinutes = undefined;
		/** @type {Map<number, number>} messages `listLate` holds back: answers still to wait */
		this.lateListings = new Map();
		this.arrivals = { sms: 0, contacts: 0 };
		// Which sent messages fail: the same ones after every reset.
		this.deliveryRandom = seededRandom(7);
		const now = Date.parse('2026-11-20T12:00:00Z');
		const random = seededRandom(42);
		for (const name of ['ACME', 'NOTIFY']) {
			this.addSenderId(
				{ name, purpose: 'TRANSACTIONAL', access: 'PRIVATE', sample: `${name} sample` },
				APPROVED,
			);
		}
		const campaigns = [
			'6f1c2d3e-4a5b-4c6d-8e7f-901a2b3c4d5e',
			'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
			'0c9b8a7f-6e5d-4c3b-9a1f-2e3d4c5b6a7f',
		];
		this.campaigns = campaigns;
		for (let i = 0; i < smsRecords; i++) {
			const sentAt = new Date(now - Math.floor(random() * 30 * 86400000));
			const status = SMS_STATUSES[i % SMS_STATUSES.length];
			this.sms.push({
				id: this.nextId.sms++,
				recipient: `2547${String(10000000 + i).slice(-8)}`,
				content: `Seeded message ${i + 1} about order ${1000 + i}`,
				status,
				sentAt: this.stamp(sentAt),
				deliveredAt: status === 'DELIVERED' ? this.stamp(sentAt.getTime() + 60000) : null,
				campaignId: campaigns[i % campaigns.length],
				userId: (i % 3) + 1,
			});
		}
		this.nextId.sms = Math.max(this.nextId.sms, this.options.firstSentId ?? 0);
		for (let i = 0; i < contacts; i++) {
			const created = this.stamp(now - (contacts - i) * 3600000);
			const first = FIRST[i % FIRST.length];
			const last = LAST[i % LAST.length];
			this.contacts.push({
				id: this.nextId.contact++,
				names: `${first} ${last}`,
				number: `2547${String(20000000 + i).slice(-8)}`,
				email: i % 4 === 0 ? null : `${first}.${last}${i}@example.com`.toLowerCase(),
				createdAt: created,
				updatedAt: created,
				deletedAt: i % 7 === 6 ? created : null,
				userId: (i % 2) + 1,
			});
		}
	}

	/**
	 * A time as this API writes it: ISO 8601 in UTC, without the Z with `localDateTimes`, or its
	 * local time without an offset with `apiZoneOffsetMinutes` (a test seeds an older record with
	 * `addSms({ sentAt: sim.stamp(Date.now() - 9_000_000) })`).
	 */
	stamp(at = Date.now()) {
		const zone = this.apiZoneOffsetMinutes;
		if (zone !== undefined) return new Date(Number(at) + zone * 60_000).toISOString().slice(0, -1);
		const iso = new Date(at).toISOString();
		return this.options.localDateTimes ? iso.slice(0, -1) : iso;
	}

	addSenderId({ name, purpose, access, sample }, status = 'PENDING') {
		const at = this.stamp();
		const record = {
			id: this.nextId.senderId++,
			name,
			purpose,
			sample,
			access,
			addedBy: {
				id: 1,
				uuid: '0b6f3a4e-1c2d-4e5f-8a9b-0c1d2e3f4a5b',
				firstName: 'Sim',
				lastName: 'User',
				gender: 'OTHER',
				email: 'sim@example.com',
				phone: '254700000000',
				address: 'Nairobi',
			},
			status,
			deletedAt: null,
			createdAt: at,
			updatedAt: at,
		};
		this.senderIds.push(record);
		return record;
	}

	/**
	 * Adds a message to the SMS list (sent now unless `sentAt` says otherwise) and returns it.
	 * @param {{recipient: string, content: string, status?: string, sentAt?: string,
	 *   campaignId?: string, userId?: number}} sms
	 */
	addSms({ recipient, content, status = 'SENT', sentAt, campaignId, userId = 1 }) {
		const record = {
			id: this.nextId.sms++,
			recipient,
			content,
			status,
			sentAt: sentAt ?? this.stamp(),
			deliveredAt: status === 'DELIVERED' ? this.stamp() : null,
			campaignId: campaignId ?? randomUUID(),
			userId,
		};
		this.sms.push(record);
		return record;
	}

	/**
	 * Makes records arrive while lists are read, as a bulk send running beside a reading or a CRM
	 * adding contacts does: after each request to that list is answered, `perRequest` new records
	 * join it (messages sent now, contacts created now: newest, so first in the default order).
	 * A list of numbers is a burst: one number per request, in turn, then none (the rate an API
	 * sees is rarely steady). reset() stops it.
	 * @param {'sms' | 'contacts'} list
	 * @param {number | number[]} perRequest
	 */
	arriveDuringReads(list, perRequest) {
		this.arrivals[list] = perRequest;
	}

	/** How many records `arriveDuringReads` adds to `list` after this answer. */
	arrivalsNow(list) {
		const planned = this.arrivals[list];
		if (!Array.isArray(planned)) return planned;
		return planned.shift() ?? 0;
	}

	/** A list's answer, once made: then the records `arriveDuringReads` adds before the next one. */
	answered(list, answer) {
		this.addArrivals(list);
		if (list === 'sms') this.listLateOnes();
		return answer;
	}

	/**
	 * Leaves a message that is in the SMS list out of it until `afterAnswers` more SMS list
	 * requests have been answered, then lists it where it belongs (by its id and sentAt): a
	 * record listed late in the middle of the list, as a lagging replica or a commit that lands
	 * after newer ones' makes it. reset() forgets it.
	 * @param {number} id
	 * @param {number} [afterAnswers]
	 */
	listLate(id, afterAnswers = 1) {
		this.setListed(id, false);
		this.lateListings.set(id, afterAnswers);
	}

	/** Counts down the messages `listLate` holds back, and lists those whose time has come. */
	listLateOnes() {
		for (const [id, left] of this.lateListings) {
			if (left > 1) {
				this.lateListings.set(id, left - 1);
				continue;
			}
			this.lateListings.delete(id);
			this.setListed(id, true);
		}
	}

	/** The records `arriveDuringReads` adds after each request to `list`. */
	addArrivals(list) {
		for (let k = 0, count = this.arrivalsNow(list); k < count; k++) {
			if (list === 'sms') {
				const sms = this.addSms({
					recipient: `2547990${String(this.nextId.sms).padStart(5, '0')}`,
					content: 'Arrived during the reading',
				});
				if (this.arrivalSentAt !== undefined) sms.sentAt = this.arrivalSentAt;
				continue;
			}
			const at = this.stamp();
			this.contacts.push({
				id: this.nextId.contact++,
				names: 'New Contact',
				number: `2547980${String(this.nextId.contact).padStart(5, '0')}`,
				email: null,
				createdAt: at,
				updatedAt: at,
				deletedAt: null,
				userId: 1,
			});
		}
	}

	/**
	 * Leaves a message out of the SMS lists (`listed` false) or lists it again: a message listed
	 * after newer ones, as an API whose commits land out of order or whose replica lags lists it.
	 * @param {number} id
	 * @param {boolean} listed
	 */
	setListed(id, listed) {
		if (listed) this.unlisted.delete(id);
		else this.unlisted.add(id);
		this.revision++;
	}

	/**
	 * The delivery model: messages whose delay has passed leave SENT, DELIVERED (with
	 * `deliveredAt` the moment it happened) or FAILED. Run before anything reads the list.
	 */
	settle(now = Date.now()) {
		for (const [id, delivery] of this.deliveries) {
			if (delivery.at > now) continue;
			this.deliveries.delete(id);
			const record = this.smsWithId(id);
			if (record?.status !== 'SENT') continue;
			record.status = delivery.status;
			record.deliveredAt = delivery.status === 'DELIVERED' ? this.stamp(delivery.at) : null;
			this.revision++;
		}
	}

	/**
	 * The message with this id, or undefined. By its place in `sms`, which tests may change: a
	 * place that no longer holds it is looked up again.
	 */
	smsWithId(id) {
		const place = this.smsPlaces?.get(id);
		if (place !== undefined && this.sms[place]?.id === id) return this.sms[place];
		this.smsPlaces = new Map(this.sms.map((record, at) => [record.id, at]));
		const again = this.smsPlaces.get(id);
		return again === undefined ? undefined : this.sms[again];
	}

	/**
	 * Sets one message's status, as the network would: `deliveredAt` is now for DELIVERED and null
	 * otherwise. Returns the message, or undefined when there is none with this id.
	 */
	setSmsStatus(id, status) {
		const record = this.smsWithId(id);
		if (!record) return undefined;
		this.deliveries.delete(id);
		record.status = status;
		record.deliveredAt = status === 'DELIVERED' ? this.stamp() : null;
		this.revision++;
		return record;
	}

	/**
	 * Makes the next matching requests misbehave.
	 * @param {object} fault
	 * @param {'api'|'send'} [fault.host] only requests to this host
	 * @param {string} [fault.path] only requests whose path (after /api/v3) is this
	 * @param {string} [fault.method] only requests with this method (POST or PUT on /sender-ids)
	 * @param {Record<string, string>} [fault.query] only requests whose query has these values
	 *   (`{status: 'SENT', page: '2'}`; `status: undefined` for none)
	 * @param {number} [fault.count] how many requests it applies to (default 1; Infinity for all)
	 * @param {number} [fault.skip] let this many matching requests through first
	 * @param {number} [fault.status] answer with this status and an error wrapper
	 * @param {string|number} [fault.retryAfter] Retry-After header value
	 * @param {() => void} [fault.beforeAnswer] run just before the request is handled (tests in the
	 *   same process), e.g. to change a message's status between two pages of one read
	 * @param {number} [fault.delayMs] wait before answering (on any host and endpoint; the request
	 *   is processed when the wait ends, or at once with `process`, even if the client gave up;
	 *   reset() and stop() drop answers still waiting)
	 * @param {Promise<unknown>} [fault.heldUntil] like delayMs, but the answer waits until this
	 *   promise settles (a test that lets a request hang while it does something else)
	 * @param {boolean} [fault.untilClientGone] like delayMs, but the answer waits until the client
	 *   closed the connection (its timeout), and then `delayMs` more if given: an answer later than
	 *   the client waits, whatever clock the client's timeout and the simulator's timers run on
	 * @param {'not-json'|'no-data'|'no-content'} [fault.malformed] a 2xx with a broken body
	 * @param {'reset'} [fault.network] destroy the connection without an answer
	 * @param {boolean} [fault.process] with network or delayMs: process the request first
	 * @param {number} [fault.dropOutgoings] send: process, then leave this many outgoings out
	 * @param {boolean} [fault.reverseOutgoings] send: process, then answer the outgoings in reverse order
	 * @param {boolean} [fault.echoPlus] send: echo each recipient with a leading + (as some APIs format it)
	 * @param {boolean} [fault.foreignIds] send: give each outgoing record an id that is not its SMS
	 *   record's (the spec does not say the two are the same)
	 * @param {boolean} [fault.neverLast] lists: say last=false and a huge totalPages
	 * @param {boolean} [fault.samePage] lists: serve page 1 whatever page was asked, with
	 *   last=false and huge totals (a cache in front of the API that ignores `page`)
	 * @param {boolean} [fault.firstPage] lists: answer with page 1 whatever page was asked, its
	 *   number and metadata too (the real totals, last=false): a cache in front of the API that
	 *   keeps page 1's answer and ignores `page`
	 * @param {boolean} [fault.localSentAt] SMS list: write each record's sentAt as 24.11.2026 10:00
	 *   (a format Date.parse cannot read)
	 * @param {boolean} [fault.noTotal] lists: leave totalElements out of the page metadata
	 * @param {boolean} [fault.noLast] lists: leave `last` out of the page metadata
	 * @param {number} [fault.pageSize] lists: serve pages of this size, whatever was asked
	 * @param {number} [fault.maxPageSize] lists: serve pages of the size asked, at most this many
	 *   records (a server whose own limit is below the spec's 100)
	 * @param {boolean} [fault.empty] lists: a well-formed 200 with no records and totals of 0, as
	 *   a lagging replica or an API hiccup would answer
	 * @param {number} [fault.proxyStatus] answer with this status and a proxy's plain-text body
	 *   (not the API's wrapper), as a proxy or load balancer in front of the API does; with
	 *   `process`, the API processed the request first (the proxy lost its answer); with
	 *   `retryAfter`, a Retry-After header too
	 * @param {boolean} [fault.html] with proxyStatus: an HTML error page (nginx, Cloudflare) instead
	 * @param {string} [fault.senderId] send: only requests whose body's senderId is this (an API's
	 *   limit per Sender ID)
	 * @param {boolean} [fault.echoAuth] with status: quote the received auth headers in the error
	 * @param {any[]} [fault.errors] with status: the `errors` entries of the error body
	 */
	inject(fault) {
		this.faults.push({ count: 1, skip: 0, ...fault });
	}

	takeFault(host, path, method, query = {}, body = undefined) {
		for (const fault of this.faults) {
			if (fault.count <= 0) continue;
			if (fault.host && fault.host !== host) continue;
			if (fault.path && fault.path !== path) continue;
			if (fault.method && fault.method.toUpperCase() !== method) continue;
			if (fault.query && Object.entries(fault.query).some(([k, v]) => query[k] !== v)) continue;
			if (fault.senderId && body?.senderId !== fault.senderId) continue;
			if (fault.skip > 0) {
				fault.skip--;
				continue;
			}
			fault.count--;
			return fault;
		}
		return undefined;
	}

	/** Envelopes the send host accepted, in order. */
	get sentEnvelopes() {
		return this.requests
			.filter((r) => r.host === 'send' && r.status === 202)
			.flatMap((r) => r.body.envelopes);
	}

	/**
	 * Starts both hosts; `tls` (or the constructor's `tls` option) serves HTTPS with a self-signed
	 * certificate made now, and the URLs returned are then https:// ones.
	 * @param {{ apiPort?: number, sendPort?: number, host?: string, tls?: boolean }} [options]
	 */
	async start({ apiPort = 0, sendPort = 0, host = '127.0.0.1', tls = this.options.tls } = {}) {
		const credentials = tls ? selfSignedCertificate() : undefined;
		this.certificate = credentials?.cert;
		const listen = (port, role) =>
			new Promise((resolve, reject) => {
				const handler = (req, res) => this.arrive(role, req, res);
				const server = credentials
					? https.createServer(credentials, handler)
					: http.createServer(handler);
				server.keepAliveTimeout = 1000;
				server.once('error', reject);
				server.listen(port, host, () => resolve(server));
			});
		const api = await listen(apiPort, 'api');
		const send = await listen(sendPort, 'send');
		this.servers = [api, send];
		const scheme = credentials ? 'https' : 'http';
		this.baseUrl = `${scheme}://${host}:${api.address().port}${PREFIX}`;
		this.sendBaseUrl = `${scheme}://${host}:${send.address().port}${PREFIX}`;
		return { baseUrl: this.baseUrl, sendBaseUrl: this.sendBaseUrl };
	}

	/** Drops the answers a delayMs fault still holds back, closing their connections. */
	cancelPending() {
		for (const { timer, res } of this.pending ?? []) {
			clearTimeout(timer);
			res.socket?.destroy();
		}
		this.pending = new Set();
	}

	/** Closes the send host's port, so that connections to it are refused, until resumeSend(). */
	async pauseSend() {
		const server = this.servers[1];
		this.sendPort = server.address().port;
		await new Promise((resolve) => {
			server.closeAllConnections?.();
			server.close(() => resolve(undefined));
		});
	}

	async resumeSend() {
		await new Promise((resolve, reject) => {
			this.servers[1].once('error', reject);
			this.servers[1].listen(this.sendPort, '127.0.0.1', () => resolve(undefined));
		});
	}

	async stop() {
		this.cancelPending();
		await Promise.all(
			this.servers.map(
				(server) =>
					new Promise((resolve) => {
						if (!server.listening) return resolve(undefined);
						server.closeAllConnections?.();
						server.close(() => resolve(undefined));
					}),
			),
		);
		this.servers = [];
	}

	/** A request arrives: it is handled after `latencyMs` (reset() and stop() drop it meanwhile). */
	arrive(role, req, res) {
		req.arrivedAt = Date.now();
		if (!(this.latencyMs > 0) || req.url.startsWith('/__sim/')) return this.handle(role, req, res);
		const entry = {
			res,
			timer: setTimeout(() => {
				this.pending.delete(entry);
				this.handle(role, req, res);
			}, this.latencyMs),
		};
		this.pending.add(entry);
	}

	handle(role, req, res) {
		const chunks = [];
		req.on('data', (chunk) => chunks.push(chunk));
		req.on('end', () => {
			const url = new URL(req.url, 'http://simulator');
			const raw = Buffer.concat(chunks).toString('utf8');
			if (role === 'api' && url.pathname.startsWith('/__sim/')) {
				return this.control(req.method, url, raw, res);
			}
			let body;
			try {
				body = raw ? JSON.parse(raw) : undefined;
			} catch {
				body = raw;
			}
			const path = url.pathname.startsWith(PREFIX)
				? url.pathname.slice(PREFIX.length)
				: url.pathname;
			const record = {
				host: role,
				method: req.method,
				path,
				query: Object.fromEntries(
					[...new Set(url.searchParams.keys())].map((k) => {
						const all = url.searchParams.getAll(k);
						return [k, all.length > 1 ? all : all[0]];
					}),
				),
				rawQuery: url.search,
				at: Date.now(),
				// Before the latency; `at` is when the request was handled and answered.
				arrivedAt: req.arrivedAt ?? Date.now(),
				headers: req.headers,
				body,
				status: undefined,
			};
			this.requests.push(record);
			const fault = this.takeFault(role, path, req.method, record.query, body);
			// A test's own change of state just before this request is handled (in-process only).
			if (typeof fault?.beforeAnswer === 'function') fault.beforeAnswer();
			if (!fault?.delayMs && !fault?.heldUntil && !fault?.untilClientGone)
				return this.answer(role, record, url, fault, res);
			// Processed now (`process`) or when the wait ends, answered when it ends. Like a slow real
			// server it processes the request even if the client gave up meanwhile (the answer then
			// goes nowhere); reset() and stop() drop it instead, so it cannot touch the next test.
			const processed =
				fault.process && !fault.status && !fault.network && !fault.proxyStatus
					? this.route(role, record, url, fault)
					: undefined;
			if (processed) record.status = processed[0];
			const entry = { res, timer: undefined };
			const release = () => {
				// Dropped meanwhile by reset() or stop().
				if (!this.pending.has(entry)) return;
				this.pending.delete(entry);
				this.answer(role, record, url, fault, res, processed);
			};
			if (fault.heldUntil) void fault.heldUntil.then(release, release);
			else if (fault.untilClientGone)
				res.once('close', () => (entry.timer = setTimeout(release, fault.delayMs ?? 0)));
			else entry.timer = setTimeout(release, fault.delayMs);
			this.pending.add(entry);
		});
	}

	answer(role, record, url, fault, res, processed) {
		if (fault?.network === 'reset') {
			if (fault.process) this.route(role, record, url, fault);
			record.status = 'reset';
			res.socket?.destroy();
			return;
		}
		if (fault?.proxyStatus) {
			if (fault.process) this.route(role, record, url, fault);
			record.status = fault.proxyStatus;
			res.writeHead(fault.proxyStatus, {
				'Content-Type': fault.html ? 'text/html' : 'text/plain',
				...(fault.retryAfter !== undefined ? { 'Retry-After': String(fault.retryAfter) } : {}),
			});
			return res.end(
				fault.html
					? `<html><head><title>${fault.proxyStatus}</title></head><body><center><h1>${fault.proxyStatus}</h1></center><hr><center>nginx</center></body></html>`
					: 'upstream connect error or disconnect/reset before headers. reset reason: connection termination',
			);
		}
		if (fault?.status) {
			record.status = fault.status;
			const headers =
				fault.retryAfter !== undefined ? { 'Retry-After': String(fault.retryAfter) } : {};
			const auth =
				`${record.headers.authorization ?? ''} ${record.headers['x-service'] ?? ''}`.trim();
			const errors = fault.echoAuth
				? [`Rejected credentials: ${auth}`]
				: (fault.errors ?? ['Injected fault']);
			const message = fault.echoAuth ? `Request with ${auth} failed` : undefined;
			return this.reply(
				res,
				record,
				fault.status,
				this.errorBody(role, record, fault.status, errors, message),
				headers,
			);
		}
		const [status, body] = processed ?? this.route(role, record, url, fault);
		record.status = status;
		if (fault?.malformed === 'not-json') {
			res.writeHead(status, { 'Content-Type': 'text/html' });
			return res.end('<html><body>Gateway says hello</body></html>');
		}
		if (fault?.malformed === 'no-data') delete body.data;
		if (fault?.malformed === 'no-content' && body.data) delete body.data.content;
		this.reply(res, record, status, body);
	}

	reply(res, record, status, body, headers = {}) {
		const text = JSON.stringify(body);
		res.writeHead(status, {
			'Content-Type': 'application/json',
			'Content-Length': Buffer.byteLength(text),
			...headers,
		});
		res.end(text);
	}

	wrapper(record, status, extra) {
		return {
			status: `${status} ${REASONS[status] ?? 'UNKNOWN'}`,
			code: extra.code,
			message: extra.message,
			timestamp: new Date().toISOString(),
			reqId: randomUUID(),
			path: `${PREFIX}${record.path}`,
			...(extra.data !== undefined ? { data: extra.data } : {}),
			...(extra.errors !== undefined ? { errors: extra.errors } : {}),
		};
	}

	/** Error bodies as spec section 7: objects on Sender ID and list operations, strings on send. */
	errorBody(role, record, status, errors, message) {
		const text = message ?? REASONS[status]?.replace(/_/g, ' ').toLowerCase() ?? 'error';
		if (role === 'send') {
			return this.wrapper(record, status, {
				code: status,
				message: text,
				errors: errors.map(String),
			});
		}
		return this.wrapper(record, status, {
			code: status * 10 + 1,
			message: text,
			errors: errors.map((e) =>
				typeof e === 'string'
					? { field: null, message: e, rejectedValue: null, rejectingValues: {} }
					: { rejectingValues: {}, ...e },
			),
		});
	}

	fail(role, record, status, errors, message) {
		return [status, this.errorBody(role, record, status, errors, message)];
	}

	route(host, record, url, fault) {
		const { method, path, headers } = record;
		const role =
			host === 'api' && path === '/outgoings/send' && this.options.sendOnApiHost ? 'send' : host;
		const expectedHeader = role === 'send' ? 'authorization' : 'x-service';
		const valid = [this.token, ...(this.options.otherTokens ?? [])];
		if (!valid.some((token) => headers[expectedHeader] === `Bearer ${token}`)) {
			const name = role === 'send' ? 'Authorization' : 'X-Service';
			return this.fail(
				role,
				record,
				401,
				[
					role === 'send'
						? `${name}: missing or invalid API token`
						: { field: name, message: 'missing or invalid API token' },
				],
				'Authentication failed',
			);
		}
		const routes = {
			api: {
				'/sender-ids': {
					POST: () => this.createSenderId(record),
					PUT: () => this.updateSenderId(record),
				},
				'/sms': { GET: () => this.answered('sms', this.listSms(record, url, fault)) },
				'/contacts': {
					GET: () => this.answered('contacts', this.listContacts(record, url, fault)),
				},
			},
			send: { '/outgoings/send': { POST: () => this.send(record, fault) } },
		}[role];
		const route = routes[path];
		if (!route)
			return this.fail(role, record, 404, [`No endpoint ${path} on this host`], 'Not found');
		const handler = route[method];
		if (!handler)
			return this.fail(
				role,
				record,
				405,
				[`${method} is not allowed on ${path}`],
				'Method not allowed',
			);
		return handler();
	}

	checkSenderIdBody(body) {
		const errors = [];
		const { name, purpose, access, sample } = body ?? {};
		if (typeof name !== 'string' || name.length < 1 || name.length > 11)
			errors.push({
				field: 'name',
				message: 'must be 1 to 11 characters',
				rejectedValue: name ?? null,
			});
		if (!PURPOSES.includes(purpose))
			errors.push({
				field: 'purpose',
				message: `must be one of ${PURPOSES.join(', ')}`,
				rejectedValue: purpose ?? null,
			});
		if (!ACCESS.includes(access))
			errors.push({
				field: 'access',
				message: `must be one of ${ACCESS.join(', ')}`,
				rejectedValue: access ?? null,
			});
		if (typeof sample !== 'string' || sample.trim() === '')
			errors.push({ field: 'sample', message: 'must not be empty', rejectedValue: sample ?? null });
		return errors;
	}

	createSenderId(record) {
		const errors = this.checkSenderIdBody(record.body);
		if (errors.length) return this.fail('api', record, 400, errors, 'Invalid parameters');
		const created = this.addSenderId(record.body);
		return [
			201,
			this.wrapper(record, 201, {
				code: 0,
				message: 'Sender ID created and awaiting approval',
				data: created,
			}),
		];
	}

	updateSenderId(record) {
		const { senderId } = record.body ?? {};
		const errors = this.checkSenderIdBody(record.body);
		if (!Number.isInteger(senderId))
			errors.push({
				field: 'senderId',
				message: 'must be an integer',
				rejectedValue: senderId ?? null,
			});
		if (errors.length) return this.fail('api', record, 400, errors, 'Invalid parameters');
		const existing = this.senderIds.find((s) => s.id === senderId && s.deletedAt === null);
		if (!existing)
			return this.fail(
				'api',
				record,
				404,
				[{ field: 'senderId', message: 'Sender ID not found', rejectedValue: senderId }],
				'Sender ID not found',
			);
		const { name, purpose, access, sample } = record.body;
		const needsApproval = name !== existing.name || purpose !== existing.purpose;
		Object.assign(existing, { name, purpose, access, sample, updatedAt: this.stamp() });
		if (needsApproval) existing.status = 'PENDING';
		return [
			200,
			this.wrapper(record, 200, { code: 0, message: 'Sender ID updated', data: existing }),
		];
	}

	send(record, fault) {
		const { senderId, envelopes, callbackUrl } = record.body ?? {};
		const errors = [];
		if (typeof senderId !== 'string' || senderId.length < 1 || senderId.length > 11)
			errors.push('senderId: must be 1 to 11 characters');
		else if (!this.senderIds.some((s) => s.name === senderId && s.status === APPROVED))
			errors.push(`senderId: ${senderId} is not an approved Sender ID of this account`);
		if (!Array.isArray(envelopes) || envelopes.length === 0)
			errors.push('envelopes: must be a non-empty array');
		else
			envelopes.forEach((e, i) => {
				if (typeof e?.number !== 'string' || !/^\d{6,15}$/.test(e.number))
					errors.push(`envelopes[${i}].number: must be digits with country code`);
				if (typeof e?.message !== 'string' || e.message === '')
					errors.push(`envelopes[${i}].message: must not be empty`);
				if (e?.thirdPartyRef !== undefined && typeof e.thirdPartyRef !== 'string')
					errors.push(`envelopes[${i}].thirdPartyRef: must be a string`);
			});
		if (errors.length) return this.fail('send', record, 400, errors, 'Invalid parameters');
		const credits = envelopes.map((e) => smsParts(e.message));
		const required = credits.reduce((a, b) => a + b, 0);
		if (required > this.balance) {
			return this.fail(
				'send',
				record,
				402,
				[`Insufficient balance: balance ${this.balance} credits, required ${required} credits`],
				'Insufficient credits',
			);
		}
		this.balance -= required;
		const campaignId = randomUUID();
		const sentAt = this.stamp();
		const { deliveryDelayMs, failureRate, normaliseText } = this.options;
		const outgoings = envelopes.map((e, i) => {
			const message = normaliseText
				? e.message.normalize('NFC').replace(/\r\n?/g, '\n').trim()
				: e.message;
			const { id } = this.addSms({ recipient: e.number, content: message, sentAt, campaignId });
			if (deliveryDelayMs !== undefined) {
				const failed = this.deliveryRandom() < failureRate;
				this.deliveries.set(id, {
					at: Date.now() + deliveryDelayMs,
					status: failed ? 'FAILED' : 'DELIVERED',
				});
			}
			const sms = { id, senderId, number: e.number, message, at: sentAt };
			this.inbox.push(sms);
			this.options.onMessage?.(sms);
			return {
				id,
				senderId,
				recipient: e.number,
				message,
				credits: credits[i],
				status: 'SENT',
				thirdPartyRef: e.thirdPartyRef,
			};
		});
		if (fault?.dropOutgoings) outgoings.splice(outgoings.length - fault.dropOutgoings);
		if (fault?.reverseOutgoings) outgoings.reverse();
		if (fault?.echoPlus)
			for (const outgoing of outgoings) outgoing.recipient = `+${outgoing.recipient}`;
		if (fault?.foreignIds) for (const outgoing of outgoings) outgoing.id += 900_000_000;
		return [
			202,
			this.wrapper(record, 202, {
				code: 202,
				message: `${envelopes.length} messages queued for sending`,
				data: {
					balance: this.balance,
					outgoings,
					...(callbackUrl !== undefined ? { callbackUrl } : {}),
				},
			}),
		];
	}

	/** Shared checks of both lists; returns [errors, page, size] or a failure. */
	listQuery(record, url, allowed) {
		const errors = [];
		for (const key of url.searchParams.keys()) {
			if (!allowed.includes(key))
				errors.push({
					field: key,
					message: 'unknown parameter',
					rejectedValue: url.searchParams.get(key),
				});
		}
		const int = (name, fallback, max) => {
			const raw = url.searchParams.get(name);
			if (raw === null) return fallback;
			const value = Number(raw);
			if (!/^\d+$/.test(raw) || value < 1 || (max && value > max)) {
				errors.push({
					field: name,
					message: max
						? `must be a positive integer of at most ${max}`
						: 'must be a positive integer',
					rejectedValue: raw,
				});
				return fallback;
			}
			return value;
		};
		const size = int('records', 10, 100);
		const page = int('page', 1);
		const userId = int('userId', undefined);
		return { errors, size, page, userId };
	}

	userFilter(record, userId, role = 'api') {
		if (userId !== undefined && !this.admin) {
			return this.fail(
				role,
				record,
				403,
				[
					{
						field: 'userId',
						message: 'only admin accounts may filter by user',
						rejectedValue: userId,
					},
				],
				'Forbidden',
			);
		}
		return undefined;
	}

	listSms(record, url, fault) {
		this.settle();
		const q = this.listQuery(record, url, [
			'records',
			'page',
			'sort',
			'userId',
			'status',
			'start-date',
			'end-date',
			'campaign-id',
			'query',
		]);
		const { errors } = q;
		const param = (n) => url.searchParams.get(n);
		const status = param('status');
		if (status !== null && status !== 'all' && !SMS_STATUSES.includes(status))
			errors.push({ field: 'status', message: 'unknown status', rejectedValue: status });
		const day = (name) => {
			const raw = param(name);
			if (raw === null) return undefined;
			const ms = /^\d{4}-\d{2}-\d{2}$/.test(raw) ? Date.parse(`${raw}T00:00:00Z`) : NaN;
			if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== raw) {
				errors.push({
					field: name,
					message: 'must be a date in the format YYYY-MM-DD',
					rejectedValue: raw,
				});
				return undefined;
			}
			return ms;
		};
		const start = day('start-date');
		const end = day('end-date');
		const campaign = param('campaign-id');
		if (campaign !== null && !/^[0-9a-f-]{36}$/i.test(campaign))
			errors.push({ field: 'campaign-id', message: 'must be a UUID', rejectedValue: campaign });
		let sort = this.defaultSmsSort;
		if (url.searchParams.getAll('sort').length > 1 || param('sort') !== null) {
			const parts = url.searchParams.getAll('sort').join(',').split(',');
			if (
				parts.length !== 2 ||
				!['id', 'sentAt', 'status'].includes(parts[0]) ||
				!['asc', 'desc'].includes(parts[1])
			)
				errors.push({
					field: 'sort',
					message: 'must be field,direction with field id, sentAt or status',
					rejectedValue: param('sort'),
				});
			else sort = parts;
		}
		if (errors.length) return this.fail('api', record, 400, errors, 'Invalid parameters');
		const forbidden = this.userFilter(record, q.userId);
		if (forbidden) return forbidden;
		const text = param('query')?.toLowerCase();
		const rows = this.cached('sms', url, () =>
			this.smsRows(status, start, end, campaign, q.userId, text, sort),
		);
		const page = this.page(rows, q.page, q.size, fault);
		return [
			200,
			this.wrapper(record, 200, {
				code: 0,
				message: 'SMS retrieved',
				data: {
					content: page.content,
					pagination: {
						pageNumber: page.number ?? q.page,
						pageSize: q.size,
						sorted: true,
						totalPages: page.totalPages,
						totalElements: page.totalElements,
						last: page.last,
						numberOfElements: page.content.length,
						first: (page.number ?? q.page) === 1,
						empty: page.content.length === 0,
					},
				},
			}),
		];
	}

	// Spec 4.4: start-date lists "messages sent after this date", end-date "messages sent before this
	// date". A date is read as its first instant, 00:00 UTC (00:00 of the API's own zone with
	// `apiZoneOffsetMinutes`): a message sent on the start date is after it, one sent on the end
	// date is not before it.
	smsRows(status, start, end, campaign, userId, text, sort) {
		const startShift = this.options.startDateAfterDay ? 86_400_000 : 0;
		const zone = this.apiZoneOffsetMinutes;
		const rows = this.sms.filter(
			(s) =>
				!this.unlisted.has(s.id) &&
				(status === null || status === 'all' || s.status === status) &&
				(start === undefined || localMs(s.sentAt, zone) >= start + startShift) &&
				(end === undefined || localMs(s.sentAt, zone) < end) &&
				(campaign === null || s.campaignId === campaign) &&
				(userId === undefined || s.userId === userId) &&
				(!text || s.content.toLowerCase().includes(text) || s.recipient.includes(text)),
		);
		const [field, direction] = sort;
		const sign = direction === 'asc' ? 1 : -1;
		const tieSign = this.tiesInAddedOrder ? 1 : sign;
		// As PostgreSQL orders: no value (a queued message's sentAt) last ascending, first descending.
		const missing = (row) => (row[field] === null ? 1 : 0);
		return rows.sort(
			(a, b) =>
				(missing(a) - missing(b)) * sign ||
				(a[field] < b[field] ? -sign : a[field] > b[field] ? sign : (a.id - b.id) * tieSign),
		);
	}

	/**
	 * Filtered and sorted rows of each list query, kept while the data does not change, so that
	 * paging a large list costs the simulator a slice per page, not a sort, however the queries
	 * of a reading alternate.
	 */
	cached(list, url, compute) {
		const params = new URLSearchParams(url.search);
		params.delete('page');
		params.delete('records');
		const data = `${this.sms.length}/${this.contacts.length}/${this.generation}/${this.revision}/${this.tiesInAddedOrder}/${this.apiZoneOffsetMinutes}/${this.defaultSmsSort}`;
		if (this.cache?.data !== data) this.cache = { data, rows: new Map() };
		const key = `${list}?${params}`;
		if (!this.cache.rows.has(key)) this.cache.rows.set(key, compute());
		return this.cache.rows.get(key);
	}

	listContacts(record, url, fault) {
		const q = this.listQuery(record, url, ['records', 'page', 'userId', 'query']);
		if (q.errors.length) return this.fail('api', record, 400, q.errors, 'Invalid parameters');
		const forbidden = this.userFilter(record, q.userId);
		if (forbidden) return forbidden;
		const text = url.searchParams.get('query')?.toLowerCase();
		const rows = this.cached('contacts', url, () =>
			this.contacts
				.filter(
					(c) =>
						(q.userId === undefined || c.userId === q.userId) &&
						(!text ||
							c.names.toLowerCase().includes(text) ||
							c.number.includes(text) ||
							(c.email ?? '').includes(text)),
				)
				.sort((a, b) =>
					a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id,
				)
				.map(({ userId, ...contact }) => contact),
		);
		const page = this.page(rows, q.page, q.size, fault);
		return [
			200,
			this.wrapper(record, 200, {
				code: 0,
				message: 'Contacts retrieved',
				data: {
					content: page.content,
					totalElements: page.totalElements,
					totalPages: page.totalPages,
					size: q.size,
					number: page.number ?? q.page,
					sort: { sorted: true, unsorted: false, empty: false },
					first: (page.number ?? q.page) === 1,
					last: page.last,
					numberOfElements: page.content.length,
					empty: page.content.length === 0,
				},
			}),
		];
	}

	page(rows, page, asked, fault) {
		if (fault?.empty) return this.page([], page, asked);
		if (fault?.firstPage && page !== 1) return { ...this.page(rows, 1, asked), number: 1 };
		if (fault?.samePage) {
			return { content: rows.slice(0, asked), totalPages: 1e9, totalElements: 1e9, last: false };
		}
		const totalElements = fault?.noTotal || this.omitTotals ? undefined : rows.length;
		const size = fault?.pageSize ?? Math.min(asked, fault?.maxPageSize ?? Infinity);
		const totalPages = this.omitTotals ? undefined : Math.ceil(rows.length / size);
		let content = rows.slice((page - 1) * size, page * size);
		if (fault?.localSentAt) {
			content = content.map((row) => {
				const [date, time] = row.sentAt.split('T');
				const [year, month, day] = date.split('-');
				return { ...row, sentAt: `${day}.${month}.${year} ${time.slice(0, 5)}` };
			});
		}
		if (fault?.neverLast) return { content, totalPages: 1e9, totalElements, last: false };
		if (fault?.noLast) return { content, totalPages, totalElements };
		return { content, totalPages, totalElements, last: page >= Math.ceil(rows.length / size) };
	}

	control(method, url, raw, res) {
		const send = (status, body) => {
			res.writeHead(status, { 'Content-Type': 'application/json' });
			res.end(JSON.stringify(body));
		};
		const body = raw ? JSON.parse(raw) : {};
		const path = url.pathname.slice('/__sim'.length);
		if (method === 'GET' && path === '/requests') return send(200, this.requests);
		if (method === 'GET' && path === '/inbox') {
			this.settle();
			const statuses = new Map(this.sms.map((sms) => [sms.id, sms.status]));
			const page = inboxPage(this.inbox, (id) => statuses.get(id));
			res.writeHead(200, {
				'Content-Type': 'text/html; charset=utf-8',
				'Cache-Control': 'no-store',
				'Content-Length': Buffer.byteLength(page),
			});
			return res.end(page);
		}
		if (method === 'GET' && path === '/state')
			return send(200, {
				balance: this.balance,
				senderIds: this.senderIds,
				smsCount: this.sms.length,
				contacts: this.contacts.length,
			});
		if (method === 'POST' && path === '/reset') {
			this.reset();
			return send(200, { ok: true });
		}
		if (method === 'POST' && path === '/faults') {
			this.inject(body);
			return send(200, { ok: true });
		}
		if (method === 'POST' && path === '/latency') {
			this.latencyMs = Number(body.latencyMs) || 0;
			return send(200, { latencyMs: this.latencyMs });
		}
		if (method === 'POST' && path === '/balance') {
			this.balance = body.balance;
			return send(200, { balance: this.balance });
		}
		const smsStatus = /^\/sms\/(\d+)\/status$/.exec(path);
		if (method === 'POST' && smsStatus) {
			if (!SMS_STATUSES.includes(body.status))
				return send(400, { error: `status must be one of ${SMS_STATUSES.join(', ')}` });
			const found = this.setSmsStatus(Number(smsStatus[1]), body.status);
			return found ? send(200, found) : send(404, { error: 'no such SMS' });
		}
		const approve = /^\/sender-ids\/(\d+)\/approve$/.exec(path);
		if (method === 'POST' && approve) {
			const found = this.senderIds.find((s) => s.id === Number(approve[1]));
			if (!found) return send(404, { error: 'no such Sender ID' });
			found.status = APPROVED;
			return send(200, found);
		}
		return send(404, { error: `no control endpoint ${method} ${path}` });
	}
}

module.exports = { Simulator, smsParts, APPROVED, inboxLine };
