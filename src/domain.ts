// The records threatgate serves, as the application sees them (docs/interface.md sections 2 and 3).

/** Risk levels of threats, indicators and the keys of risk counts (docs/interface.md section 1). */
export const RISK_LEVELS = ['unknown', 'none', 'low', 'medium', 'high', 'critical', 'retired'] as const;
export type Risk = (typeof RISK_LEVELS)[number];

/** A timestamp in the interface's form `YYYY-MM-DD HH:MM:SS`, UTC (docs/interface.md section 1). */
export type Stamp = string;

export type JsonObject = { [key: string]: unknown };

export interface NewsItem {
  title: string;
  channel: string;
  icon: string;
  link: string;
  stamp: Stamp;
  primary: number;
}

export interface CommentItem {
  cid: number;
  username: string;
  title: string;
  comment: string;
  stamp_added: Stamp;
  stamp_updated: Stamp;
}

/** A threat as imported: the data fields of docs/interface.md section 2.1, without aggregates. */
export interface Threat {
  tid: number;
  threat: string;
  category: string;
  risk: Risk;
  othernames: string[];
  description: string | null;
  notes: string | null;
  wikisummary: string | null;
  wikireference: string | null;
  retired: boolean | null;
  stamp_added: Stamp | null;
  stamp_updated: Stamp | null;
  stamp_seen: Stamp | null;
  stamp_retired: Stamp | null;
  attributes: JsonObject;
  ttps: JsonObject[];
  news: NewsItem[];
  comments: CommentItem[];
  /** Ids of related threats; names, categories and risks are looked up when served. */
  related: number[];
}

export interface Contact {
  name: string;
  email: string;
  phone: string;
}

/** A feed as imported: docs/interface.md section 2.2 without `indicators` and `summary`. */
export interface Feed {
  fid: number;
  feed: string;
  organization: string;
  category: string;
  pricing: string;
  contact: Contact;
  website: string;
  schedule: string;
  stamp_added: Stamp | null;
  stamp_updated: Stamp | null;
  stamp_pulled: Stamp | null;
  stamp_modified: Stamp | null;
  description: string;
  accesslink: string;
}

/** Indicator attributes: each key holds a list of values, e.g. `{"port": ["443"]}`. */
export interface IndicatorAttributes {
  port?: string[];
  protocol?: string[];
  technology?: string[];
  hosttype?: string[];
  [key: string]: string[] | undefined;
}

export interface Indicator {
  iid: number;
  indicator: string;
  /** One of INDICATOR_TYPES (src/indicator-types.ts), stored in lower case. */
  type: string;
  risk: Risk;
  stamp_added: Stamp | null;
  stamp_updated: Stamp | null;
  stamp_seen: Stamp | null;
  retired: boolean | null;
  attributes: IndicatorAttributes;
  properties: JsonObject;
}

/** A link of an indicator to a feed or to a threat. */
export type Link =
  | { iid: number; fid: number; stamp_linked: Stamp }
  | { iid: number; tid: number; stamp_linked: Stamp };
