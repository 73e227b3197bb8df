/**
 * envproof's own behavioural suite for the RealWorld Conduit contract: one stateful sequence over every
 * operation of the document (users, profiles, follows, articles, the feed, favourites, comments, tags,
 * deletes). The assertion list is fixed: every run has the same denominator, and a request that cannot be
 * made (its inputs are missing, the server is gone) fails all of its assertions.
 *
 * Kinds of assertion: `status` (a code the document lists for the outcome), `schema` (the body validates against the
 * document's schema for that code), `value` (a field holds what the sequence put there) and `state` (a
 * later read reflects an earlier write).
 */

export type AssertionKind = 'status' | 'schema' | 'value' | 'state';

/**
 * What the sequence has learnt so far (tokens, slugs, ids) and the run's unique names: users, article titles
 * and tags carry a random suffix, so that nothing another suite created (a Postman collection's article, its
 * tags) can collide with what this run creates.
 */
export interface SuiteContext {
  vars: Record<string, string | number | undefined>;
  user: { username: string; email: string; password: string };
  celeb: { username: string; email: string; password: string };
  /** The run's suffix, e.g. `3f9a0c1d`. */
  suffix: string;
}

export interface Response {
  status: number;
  /** Parsed JSON, or undefined when the body is empty or not JSON. */
  json: any;
}

/** A check returns true, or a sentence saying what was wrong. */
export type Check = (res: Response, ctx: SuiteContext) => true | string;

export interface AssertionSpec {
  /** Unique within the step. */
  id: string;
  kind: AssertionKind;
  description: string;
  /** `schema` assertions are checked against the document, not by a function. */
  check?: Check;
}

export interface StepSpec {
  id: string;
  /** The operation of the contract (its operationId). */
  operation: string;
  /** Context variables the request needs; when one is missing the step is not run. */
  needs?: string[];
  /** Path parameters, from the context. */
  params?: (ctx: SuiteContext) => Record<string, string | number>;
  query?: (ctx: SuiteContext) => Record<string, string>;
  /** Which token goes in `Authorization: Token …` (a context variable), if any. */
  auth?: string;
  body?: (ctx: SuiteContext) => unknown;
  /**
   * The outcome the step expects: a success code (the `schema` assertion uses its schema), or a client error,
   * for which every 4xx code the document lists for the operation is accepted.
   */
  expect: number;
  assertions: AssertionSpec[];
  /** Learns from a response (tokens, slugs); runs on any 2xx answer. */
  learn?: (res: Response, ctx: SuiteContext) => void;
}

const fail = (what: string, got: unknown) => `${what}; got ${JSON.stringify(got)?.slice(0, 120)}`;

/** Checked against the statuses the document lists for the operation (run-suite.ts: acceptedStatuses). */
const status: AssertionSpec = { id: 'status', kind: 'status', description: 'a status the document lists' };

const schema: AssertionSpec = { id: 'schema', kind: 'schema', description: "the body matches the document's schema" };

function value(id: string, description: string, kind: AssertionKind, test: (json: any, ctx: SuiteContext) => boolean, got: (json: any) => unknown): AssertionSpec {
  return {
    id,
    kind,
    description,
    check: (r, ctx) => {
      if (r.json === undefined) return 'the body is not JSON';
      let ok = false;
      try {
        ok = test(r.json, ctx);
      } catch {
        ok = false;
      }
      return ok || fail(description, (() => {
        try {
          return got(r.json);
        } catch {
          return undefined;
        }
      })());
    },
  };
}

const slugsOf = (json: any): string[] => (json.articles as { slug: string }[]).map((a) => a.slug);
const articleIn = (json: any, slug: unknown) => (json.articles as { slug: string; favoritesCount: number }[]).find((a) => a.slug === slug);

const tagsOf = (c: SuiteContext) => ({ dragons: `dragons-${c.suffix}`, training: `training-${c.suffix}` });
const ARTICLE_BODY = 'You have to believe';
const articleA = (c: SuiteContext) => ({ title: `How to train your dragon ${c.suffix}`, description: 'Ever wonder how?', body: ARTICLE_BODY, tagList: [tagsOf(c).dragons, tagsOf(c).training] });
const articleB = (c: SuiteContext) => ({ title: `Dragon feeding schedules ${c.suffix}`, description: 'Twice a day', body: 'Mostly fish', tagList: [tagsOf(c).dragons] });
const UPDATED_BODY = 'With two hands';
const BIO = 'I work at a dragon school';
const COMMENT = 'Thank you so much!';

/** Follow (or unfollow) the second user, then read the profile back. */
function followSteps(follow: boolean): StepSpec[] {
  const verb = follow ? 'follow' : 'unfollow';
  const flag = follow ? 'following' : 'not-following';
  const is = (j: any) => j.profile.following === follow;
  const got = (j: any) => j.profile?.following;
  const common = { needs: ['token'], auth: 'token', params: (c: SuiteContext) => ({ username: c.celeb.username }), expect: 200 };
  return [
    { id: verb, operation: follow ? 'FollowUserByUsername' : 'UnfollowUserByUsername', ...common, assertions: [status, schema, value(flag, `profile.following is ${follow}`, 'value', is, got)] },
    { id: `profile-after-${verb}`, operation: 'GetProfileByUsername', ...common, assertions: [status, value(flag, `the ${verb} was stored`, 'state', is, got)] },
  ];
}

export const CONDUIT_SUITE: readonly StepSpec[] = [
  {
    id: 'register',
    operation: 'CreateUser',
    body: (c) => ({ user: c.user }),
    expect: 201,
    assertions: [
      status,
      schema,
      value('username', 'user.username is the registered name', 'value', (j, c) => j.user.username === c.user.username, (j) => j.user?.username),
      value('email', 'user.email is the registered email', 'value', (j, c) => j.user.email === c.user.email, (j) => j.user?.email),
      value('token', 'user.token is a non-empty string', 'value', (j) => typeof j.user.token === 'string' && j.user.token.length > 0, (j) => j.user?.token),
    ],
  },
  {
    id: 'register-duplicate',
    operation: 'CreateUser',
    body: (c) => ({ user: c.user }),
    expect: 422,
    assertions: [status, schema],
  },
  {
    id: 'login-wrong-password',
    operation: 'Login',
    body: (c) => ({ user: { email: c.user.email, password: `${c.user.password}-wrong` } }),
    expect: 401,
    assertions: [status],
  },
  {
    id: 'login',
    operation: 'Login',
    body: (c) => ({ user: { email: c.user.email, password: c.user.password } }),
    expect: 200,
    assertions: [
      status,
      schema,
      value('email', 'user.email is the login email', 'value', (j, c) => j.user.email === c.user.email, (j) => j.user?.email),
      value('token', 'user.token is a non-empty string', 'value', (j) => typeof j.user.token === 'string' && j.user.token.length > 0, (j) => j.user?.token),
    ],
    learn: (r, c) => {
      c.vars.token = r.json?.user?.token;
    },
  },
  { id: 'current-user-anonymous', operation: 'GetCurrentUser', expect: 401, assertions: [status] },
  {
    id: 'current-user',
    operation: 'GetCurrentUser',
    needs: ['token'],
    auth: 'token',
    expect: 200,
    assertions: [status, schema, value('username', 'user.username is the logged-in user', 'value', (j, c) => j.user.username === c.user.username, (j) => j.user?.username)],
  },
  {
    id: 'update-user',
    operation: 'UpdateCurrentUser',
    needs: ['token'],
    auth: 'token',
    body: () => ({ user: { bio: BIO } }),
    expect: 200,
    assertions: [status, schema, value('bio', 'user.bio is the new bio', 'value', (j) => j.user.bio === BIO, (j) => j.user?.bio)],
  },
  {
    id: 'current-user-after-update',
    operation: 'GetCurrentUser',
    needs: ['token'],
    auth: 'token',
    expect: 200,
    assertions: [status, value('bio', 'the new bio was stored', 'state', (j) => j.user.bio === BIO, (j) => j.user?.bio)],
  },
  {
    id: 'register-celeb',
    operation: 'CreateUser',
    body: (c) => ({ user: c.celeb }),
    expect: 201,
    assertions: [status, schema],
    learn: (r, c) => {
      c.vars.celebToken = r.json?.user?.token;
    },
  },
  {
    id: 'profile',
    operation: 'GetProfileByUsername',
    params: (c) => ({ username: c.celeb.username }),
    expect: 200,
    assertions: [
      status,
      schema,
      value('username', 'profile.username is the celeb', 'value', (j, c) => j.profile.username === c.celeb.username, (j) => j.profile?.username),
      value('not-following', 'profile.following is false before following', 'value', (j) => j.profile.following === false, (j) => j.profile?.following),
    ],
  },
  ...followSteps(true),
  {
    id: 'create-article',
    operation: 'CreateArticle',
    needs: ['token'],
    auth: 'token',
    body: (c) => ({ article: articleA(c) }),
    expect: 201,
    assertions: [
      status,
      schema,
      value('title', 'article.title is the given title', 'value', (j, c) => j.article.title === articleA(c).title, (j) => j.article?.title),
      value('slug', 'article.slug is a non-empty string', 'value', (j) => typeof j.article.slug === 'string' && j.article.slug.length > 0, (j) => j.article?.slug),
      value('tags', 'article.tagList holds the given tags', 'value', (j, c) => [...j.article.tagList].sort().join() === [...articleA(c).tagList].sort().join(), (j) => j.article?.tagList),
      value('not-favorited', 'article.favorited is false', 'value', (j) => j.article.favorited === false, (j) => j.article?.favorited),
      value('no-favorites', 'article.favoritesCount is 0', 'value', (j) => j.article.favoritesCount === 0, (j) => j.article?.favoritesCount),
      value('author', 'article.author.username is the user', 'value', (j, c) => j.article.author.username === c.user.username, (j) => j.article?.author?.username),
    ],
    learn: (r, c) => {
      c.vars.slug = r.json?.article?.slug;
    },
  },
  { id: 'create-article-anonymous', operation: 'CreateArticle', body: (c) => ({ article: articleB(c) }), expect: 401, assertions: [status] },
  {
    id: 'get-article',
    operation: 'GetArticle',
    needs: ['slug'],
    params: (c) => ({ slug: c.vars.slug! }),
    expect: 200,
    assertions: [
      status,
      schema,
      value('slug', 'article.slug is the requested slug', 'value', (j, c) => j.article.slug === c.vars.slug, (j) => j.article?.slug),
      value('body', 'article.body is the created body', 'state', (j) => j.article.body === ARTICLE_BODY, (j) => j.article?.body),
    ],
  },
  {
    id: 'update-article',
    operation: 'UpdateArticle',
    needs: ['token', 'slug'],
    auth: 'token',
    params: (c) => ({ slug: c.vars.slug! }),
    body: () => ({ article: { body: UPDATED_BODY } }),
    expect: 200,
    assertions: [
      status,
      schema,
      value('body', 'article.body is the new body', 'value', (j) => j.article.body === UPDATED_BODY, (j) => j.article?.body),
      value('title', 'article.title is unchanged', 'value', (j, c) => j.article.title === articleA(c).title, (j) => j.article?.title),
    ],
    learn: (r, c) => {
      c.vars.slug = r.json?.article?.slug ?? c.vars.slug;
    },
  },
  {
    id: 'get-article-after-update',
    operation: 'GetArticle',
    needs: ['slug'],
    params: (c) => ({ slug: c.vars.slug! }),
    expect: 200,
    assertions: [status, value('body', 'the new body was stored', 'state', (j) => j.article.body === UPDATED_BODY, (j) => j.article?.body)],
  },
  {
    id: 'list-articles',
    operation: 'GetArticles',
    needs: ['slug'],
    expect: 200,
    assertions: [
      status,
      schema,
      value('contains', 'the article is listed and counted', 'state', (j, c) => slugsOf(j).includes(String(c.vars.slug)) && j.articlesCount >= 1, (j) => j.articlesCount),
    ],
  },
  {
    id: 'list-by-author',
    operation: 'GetArticles',
    query: (c) => ({ author: c.user.username }),
    expect: 200,
    assertions: [
      status,
      schema,
      value('only-author', "every listed article is the user's, and there is one", 'value', (j, c) => j.articles.length === 1 && j.articles.every((a: any) => a.author.username === c.user.username), (j) => j.articles?.map((a: any) => a.author?.username)),
    ],
  },
  {
    id: 'list-by-tag',
    operation: 'GetArticles',
    needs: ['slug'],
    query: (c) => ({ tag: tagsOf(c).training }),
    expect: 200,
    assertions: [status, schema, value('contains', 'the article is listed under its tag', 'value', (j, c) => slugsOf(j).includes(String(c.vars.slug)), (j) => slugsOf(j))],
  },
  {
    id: 'list-by-unknown-author',
    operation: 'GetArticles',
    query: (c) => ({ author: `${c.user.username}_nobody` }),
    expect: 200,
    assertions: [status, value('empty', 'no article and articlesCount 0', 'value', (j) => j.articles.length === 0 && j.articlesCount === 0, (j) => j.articlesCount)],
  },
  {
    id: 'create-celeb-article',
    operation: 'CreateArticle',
    needs: ['celebToken'],
    auth: 'celebToken',
    body: (c) => ({ article: articleB(c) }),
    expect: 201,
    assertions: [status],
    learn: (r, c) => {
      c.vars.celebSlug = r.json?.article?.slug;
    },
  },
  {
    id: 'feed',
    operation: 'GetArticlesFeed',
    needs: ['token', 'celebSlug'],
    auth: 'token',
    expect: 200,
    assertions: [
      status,
      schema,
      value('followed', "the followed author's article is in the feed", 'state', (j, c) => slugsOf(j).includes(String(c.vars.celebSlug)), (j) => slugsOf(j)),
      value('not-own', "the user's own article is not in the feed", 'value', (j, c) => !slugsOf(j).includes(String(c.vars.slug)), (j) => slugsOf(j)),
    ],
  },
  { id: 'feed-anonymous', operation: 'GetArticlesFeed', expect: 401, assertions: [status] },
  {
    id: 'favorite',
    operation: 'CreateArticleFavorite',
    needs: ['token', 'slug'],
    auth: 'token',
    params: (c) => ({ slug: c.vars.slug! }),
    expect: 200,
    assertions: [
      status,
      schema,
      value('favorited', 'article.favorited is true', 'value', (j) => j.article.favorited === true, (j) => j.article?.favorited),
      value('count', 'article.favoritesCount is 1', 'value', (j) => j.article.favoritesCount === 1, (j) => j.article?.favoritesCount),
    ],
  },
  {
    id: 'list-favorited',
    operation: 'GetArticles',
    needs: ['slug'],
    query: (c) => ({ favorited: c.user.username }),
    expect: 200,
    assertions: [
      status,
      value('contains', 'the favourited article is listed', 'state', (j, c) => slugsOf(j).includes(String(c.vars.slug)), (j) => slugsOf(j)),
      value('count', 'its favoritesCount is 1', 'state', (j, c) => articleIn(j, c.vars.slug)?.favoritesCount === 1, (j) => j.articles?.[0]?.favoritesCount),
    ],
  },
  {
    id: 'get-article-favorited',
    operation: 'GetArticle',
    needs: ['token', 'slug'],
    auth: 'token',
    params: (c) => ({ slug: c.vars.slug! }),
    expect: 200,
    assertions: [status, value('favorited', 'the favourite was stored for the user', 'state', (j) => j.article.favorited === true, (j) => j.article?.favorited)],
  },
  {
    id: 'unfavorite',
    operation: 'DeleteArticleFavorite',
    needs: ['token', 'slug'],
    auth: 'token',
    params: (c) => ({ slug: c.vars.slug! }),
    expect: 200,
    assertions: [
      status,
      schema,
      value('not-favorited', 'article.favorited is false again', 'value', (j) => j.article.favorited === false, (j) => j.article?.favorited),
      value('count', 'article.favoritesCount is 0 again', 'value', (j) => j.article.favoritesCount === 0, (j) => j.article?.favoritesCount),
    ],
  },
  {
    id: 'list-favorited-after-unfavorite',
    operation: 'GetArticles',
    query: (c) => ({ favorited: c.user.username }),
    expect: 200,
    assertions: [status, value('empty', 'nothing is listed as favourited', 'state', (j) => j.articles.length === 0 && j.articlesCount === 0, (j) => j.articlesCount)],
  },
  {
    id: 'add-comment',
    operation: 'CreateArticleComment',
    needs: ['token', 'slug'],
    auth: 'token',
    params: (c) => ({ slug: c.vars.slug! }),
    body: () => ({ comment: { body: COMMENT } }),
    expect: 200,
    assertions: [
      status,
      schema,
      value('body', 'comment.body is the given text', 'value', (j) => j.comment.body === COMMENT, (j) => j.comment?.body),
      value('author', 'comment.author.username is the user', 'value', (j, c) => j.comment.author.username === c.user.username, (j) => j.comment?.author?.username),
    ],
    learn: (r, c) => {
      c.vars.commentId = r.json?.comment?.id;
    },
  },
  {
    id: 'list-comments',
    operation: 'GetArticleComments',
    needs: ['token', 'slug', 'commentId'],
    auth: 'token',
    params: (c) => ({ slug: c.vars.slug! }),
    expect: 200,
    assertions: [status, schema, value('contains', 'the comment is listed', 'state', (j, c) => j.comments.some((x: any) => x.id === c.vars.commentId), (j) => j.comments?.map((x: any) => x.id))],
  },
  {
    id: 'list-comments-anonymous',
    operation: 'GetArticleComments',
    needs: ['slug', 'commentId'],
    params: (c) => ({ slug: c.vars.slug! }),
    expect: 200,
    assertions: [status, value('contains', 'the comment is listed without login', 'state', (j, c) => j.comments.some((x: any) => x.id === c.vars.commentId), (j) => j.comments?.map((x: any) => x.id))],
  },
  {
    id: 'delete-comment',
    operation: 'DeleteArticleComment',
    needs: ['token', 'slug', 'commentId'],
    auth: 'token',
    params: (c) => ({ slug: c.vars.slug!, id: c.vars.commentId! }),
    expect: 200,
    assertions: [status],
  },
  {
    id: 'list-comments-after-delete',
    operation: 'GetArticleComments',
    needs: ['slug', 'commentId'],
    params: (c) => ({ slug: c.vars.slug! }),
    expect: 200,
    assertions: [status, value('gone', 'the comment is gone', 'state', (j, c) => !j.comments.some((x: any) => x.id === c.vars.commentId), (j) => j.comments?.map((x: any) => x.id))],
  },
  {
    id: 'tags',
    operation: 'GetTags',
    expect: 200,
    assertions: [status, schema, value('contains', 'the tags of the articles are listed', 'state', (j, c) => j.tags.includes(tagsOf(c).dragons) && j.tags.includes(tagsOf(c).training), (j) => j.tags)],
  },
  ...followSteps(false),
  {
    id: 'delete-article',
    operation: 'DeleteArticle',
    needs: ['token', 'slug'],
    auth: 'token',
    params: (c) => ({ slug: c.vars.slug! }),
    expect: 200,
    assertions: [status],
  },
  {
    id: 'get-deleted-article',
    operation: 'GetArticle',
    needs: ['slug'],
    params: (c) => ({ slug: c.vars.slug! }),
    expect: 404,
    assertions: [{ id: 'gone', kind: 'state', description: 'the deleted article is no longer served', check: (r) => (r.status >= 400 && r.status < 500) || `expected a 4xx status, got ${r.status}` }],
  },
  {
    id: 'list-by-author-after-delete',
    operation: 'GetArticles',
    query: (c) => ({ author: c.user.username }),
    expect: 200,
    assertions: [status, value('empty', "the user's article is gone from the list", 'state', (j) => j.articles.length === 0 && j.articlesCount === 0, (j) => j.articlesCount)],
  },
  {
    // Unscored: leaves no article behind, so that a collection run after this suite finds the empty lists it
    // counts its assertions for.
    id: 'cleanup-celeb-article',
    operation: 'DeleteArticle',
    needs: ['celebToken', 'celebSlug'],
    auth: 'celebToken',
    params: (c) => ({ slug: c.vars.celebSlug! }),
    expect: 200,
    assertions: [],
  },
];

/** Every assertion of the suite, as `step.assertion` ids, in order: the fixed denominator of A%. */
export function assertionIds(suite: readonly StepSpec[] = CONDUIT_SUITE): string[] {
  return suite.flatMap((s) => s.assertions.map((a) => `${s.id}.${a.id}`));
}
