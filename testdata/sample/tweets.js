window.YTD.tweets.part0 = [
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116908019530821633"
          ],
          "editableUntil" : "2026-11-01T15:59:36.762Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://ifttt.com\" rel=\"nofollow\">IFTTT</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "94"
      ],
      "favorite_count" : "0",
      "id_str" : "2116908019530821633",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116908019530821633",
      "created_at" : "Sun Nov 01 14:59:36 +0000 2026",
      "favorited" : false,
      "full_text" : "Vida para es de golazo ciudad café los para música! 🤔 Con ciudad música? Feliz todos @mateo107",
      "lang" : "es"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116907351189110834"
          ],
          "editableUntil" : "2026-11-01T15:56:57.417Z",
          "editsRemaining" : "5",
          "isEditEligible" : false
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://mobile.twitter.com\" rel=\"nofollow\">Twitter Web App</a>",
      "entities" : {
        "hashtags" : [
          {
            "text" : "México",
            "indices" : [
              "22",
              "29"
            ]
          },
          {
            "text" : "BigData",
            "indices" : [
              "89",
              "97"
            ]
          },
          {
            "text" : "FelizDomingo",
            "indices" : [
              "121",
              "134"
            ]
          }
        ],
        "symbols" : [],
        "user_mentions" : [
          {
            "name" : "Sofía Pérez 🎉",
            "screen_name" : "vale_90",
            "indices" : [
              "3",
              "11"
            ],
            "id_str" : "2252298665",
            "id" : "2252298665"
          }
        ],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "134"
      ],
      "favorite_count" : "0",
      "id_str" : "2116907351189110834",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116907351189110834",
      "created_at" : "Sun Nov 01 14:56:57 +0000 2026",
      "favorited" : false,
      "full_text" : "RT @vale_90: Hola con #México increíble familia con!! Vida gracias todos 🤔 vamos gracias #BigData increíble 🥺 lluvia con #FelizDomingo",
      "lang" : "es"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116905050351251457"
          ],
          "editableUntil" : "2026-11-01T15:47:48.854Z",
          "editsRemaining" : "5",
          "isEditEligible" : false
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://mobile.twitter.com\" rel=\"nofollow\">Twitter Web App</a>",
      "entities" : {
        "hashtags" : [
          {
            "text" : "Madrid",
            "indices" : [
              "97",
              "104"
            ]
          }
        ],
        "symbols" : [],
        "user_mentions" : [
          {
            "name" : "Javier",
            "screen_name" : "diego106",
            "indices" : [
              "3",
              "12"
            ],
            "id_str" : "1009145173376241666",
            "id" : "1009145173376241666"
          }
        ],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "104"
      ],
      "favorite_count" : "0",
      "id_str" : "2116905050351251457",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116905050351251457",
      "created_at" : "Sun Nov 01 14:47:48 +0000 2026",
      "favorited" : false,
      "full_text" : "RT @diego106: Trabajo @carlos_89 qué!! Siempre feliz ciudad café bueno gracias golazo @noura_155 #Madrid",
      "lang" : "es"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116904564672749569"
          ],
          "editableUntil" : "2026-11-01T15:45:53.059Z",
          "editsRemaining" : "5",
          "isEditEligible" : false
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://mobile.twitter.com\" rel=\"nofollow\">Twitter Web App</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [
          {
            "name" : "María García",
            "screen_name" : "maria_97",
            "indices" : [
              "3",
              "12"
            ],
            "id_str" : "728019825456771108",
            "id" : "728019825456771108"
          }
        ],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "71"
      ],
      "favorite_count" : "0",
      "id_str" : "2116904564672749569",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116904564672749569",
      "created_at" : "Sun Nov 01 14:45:53 +0000 2026",
      "favorited" : false,
      "full_text" : "RT @maria_97: Canción para de lluvia año familia feliz mañana increíble",
      "lang" : "es"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116901552149098498"
          ],
          "editableUntil" : "2026-11-01T15:33:54.818Z",
          "editsRemaining" : "5",
          "isEditEligible" : false
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"http://twitter.com/download/android\" rel=\"nofollow\">Twitter for Android</a>",
      "entities" : {
        "hashtags" : [
          {
            "text" : "ApacheFlink",
            "indices" : [
              "20",
              "32"
            ]
          },
          {
            "text" : "NowPlaying",
            "indices" : [
              "51",
              "62"
            ]
          }
        ],
        "symbols" : [],
        "user_mentions" : [
          {
            "name" : "Hughes Zoe",
            "screen_name" : "grace29",
            "indices" : [
              "3",
              "11"
            ],
            "id_str" : "1757617505829281798",
            "id" : "1757617505829281798"
          }
        ],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "98"
      ],
      "favorite_count" : "0",
      "id_str" : "2116901552149098498",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116901552149098498",
      "created_at" : "Sun Nov 01 14:33:54 +0000 2026",
      "favorited" : false,
      "full_text" : "RT @grace29: For to #ApacheFlink is @tanaka69 late #NowPlaying with everyone dinner at book a wait",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116901500602478593"
          ],
          "editableUntil" : "2026-11-01T15:33:42.528Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"http://twitter.com/download/iphone\" rel=\"nofollow\">Twitter for iPhone</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "141"
      ],
      "favorite_count" : "0",
      "id_str" : "2116901500602478593",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116901500602478593",
      "created_at" : "Sun Nov 01 14:33:42 +0000 2026",
      "favorited" : false,
      "full_text" : "Good wait so friends to book birthday trailer in again what my the watching album we a ❤️ @ldn9 train Tom &amp; Jerry https://t.co/FZ7UrXOyej",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116901309103603718"
          ],
          "editableUntil" : "2026-11-01T15:32:56.871Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"http://twitter.com/download/iphone\" rel=\"nofollow\">Twitter for iPhone</a>",
      "entities" : {
        "hashtags" : [
          {
            "text" : "Halloween",
            "indices" : [
              "89",
              "99"
            ]
          },
          {
            "text" : "WorldSeries",
            "indices" : [
              "127",
              "139"
            ]
          },
          {
            "text" : "OpenSource",
            "indices" : [
              "178",
              "189"
            ]
          }
        ],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "250"
      ],
      "favorite_count" : "0",
      "id_str" : "2116901309103603718",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116901309103603718",
      "created_at" : "Sun Nov 01 14:32:56 +0000 2026",
      "favorited" : false,
      "full_text" : "Watching update home so project amazing election people people really 💯 everyone finally #Halloween 😂 watching again the album #WorldSeries on serendipity! Is late data watching #OpenSource today what!! Tweet time book election day love amazing again",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116901071426019332"
          ],
          "editableUntil" : "2026-11-01T15:32:00.204Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://mobile.twitter.com\" rel=\"nofollow\">Twitter Web App</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "101"
      ],
      "favorite_count" : "0",
      "in_reply_to_status_id_str" : "2116883943995297796",
      "in_reply_to_user_id" : "1757617505829281798",
      "in_reply_to_screen_name" : "grace29",
      "id_str" : "2116901071426019332",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116901071426019332",
      "created_at" : "Sun Nov 01 14:32:00 +0000 2026",
      "favorited" : false,
      "full_text" : "@grace29 Honestly weekend stream good just birthday rain finally finally for news news pipeline album",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116898942613053447"
          ],
          "editableUntil" : "2026-11-01T15:23:32.656Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"http://instagram.com\" rel=\"nofollow\">Instagram</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "52"
      ],
      "favorite_count" : "0",
      "id_str" : "2116898942613053447",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116898942613053447",
      "created_at" : "Sun Nov 01 14:23:32 +0000 2026",
      "favorited" : false,
      "full_text" : "A rain home for news great with launch watching wait",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116898141306249221"
          ],
          "editableUntil" : "2026-11-01T15:20:21.609Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://about.twitter.com/products/tweetdeck\" rel=\"nofollow\">TweetDeck</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "23"
      ],
      "favorite_count" : "0",
      "id_str" : "2116898141306249221",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116898141306249221",
      "created_at" : "Sun Nov 01 14:20:21 +0000 2026",
      "favorited" : false,
      "full_text" : "Friends sunny @tanaka69",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116898096480137218"
          ],
          "editableUntil" : "2026-11-01T15:20:10.922Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://mobile.twitter.com\" rel=\"nofollow\">Twitter Web App</a>",
      "entities" : {
        "hashtags" : [
          {
            "text" : "Madrid",
            "indices" : [
              "82",
              "89"
            ]
          }
        ],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "96"
      ],
      "favorite_count" : "0",
      "id_str" : "2116898096480137218",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116898096480137218",
      "created_at" : "Sun Nov 01 14:20:10 +0000 2026",
      "favorited" : false,
      "full_text" : "@ryan192 Amigos amigos es nueva trabajo hola en vida nuevo trabajo ✨ lluvia nueva #Madrid ciudad",
      "lang" : "es"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116896956524752896"
          ],
          "editableUntil" : "2026-11-01T15:15:39.136Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://about.twitter.com/products/tweetdeck\" rel=\"nofollow\">TweetDeck</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "63"
      ],
      "favorite_count" : "0",
      "in_reply_to_status_id_str" : "2116846954955124742",
      "in_reply_to_user_id" : "1690894496823762950",
      "in_reply_to_screen_name" : "noura_146",
      "id_str" : "2116896956524752896",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116896956524752896",
      "created_at" : "Sun Nov 01 14:15:39 +0000 2026",
      "favorited" : false,
      "full_text" : "@noura_146 At of query coffee new query win reading movie tweet",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116893649323528194"
          ],
          "editableUntil" : "2026-11-01T15:02:30.637Z",
          "editsRemaining" : "5",
          "isEditEligible" : false
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"http://instagram.com\" rel=\"nofollow\">Instagram</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [
          {
            "name" : "Zoe Carter",
            "screen_name" : "ava1",
            "indices" : [
              "3",
              "8"
            ],
            "id_str" : "2192493211",
            "id" : "2192493211"
          }
        ],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "140"
      ],
      "favorite_count" : "0",
      "id_str" : "2116893649323528194",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116893649323528194",
      "created_at" : "Sun Nov 01 14:02:30 +0000 2026",
      "favorited" : false,
      "full_text" : "RT @ava1: Coffee stream late @mase_188 what the weekend again watching at event amazing working best weather amazing for news a just #Hallo…",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116891433395650561"
          ],
          "editableUntil" : "2026-11-01T14:53:42.319Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"http://instagram.com\" rel=\"nofollow\">Instagram</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "45"
      ],
      "favorite_count" : "0",
      "id_str" : "2116891433395650561",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116891433395650561",
      "created_at" : "Sun Nov 01 13:53:42 +0000 2026",
      "favorited" : false,
      "full_text" : "Event so lunch with game of breaking everyone",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116890960602550274"
          ],
          "editableUntil" : "2026-11-01T14:51:49.596Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://mobile.twitter.com\" rel=\"nofollow\">Twitter Web App</a>",
      "entities" : {
        "hashtags" : [
          {
            "text" : "NFL",
            "indices" : [
              "141",
              "145"
            ]
          },
          {
            "text" : "ApacheAccumulo",
            "indices" : [
              "163",
              "178"
            ]
          },
          {
            "text" : "WorldSeries",
            "indices" : [
              "245",
              "257"
            ]
          },
          {
            "text" : "ApacheFlink",
            "indices" : [
              "258",
              "270"
            ]
          }
        ],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "270"
      ],
      "favorite_count" : "0",
      "id_str" : "2116890960602550274",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116890960602550274",
      "created_at" : "Sun Nov 01 13:51:49 +0000 2026",
      "favorited" : false,
      "full_text" : "Cluster match data thanks movie family index pipeline movie event tweet vote is we it 😂 a really we my are election late home it query train #NFL serendipity late #ApacheAccumulo win city best breaking @aoi_49 is honestly birthday team everyone #WorldSeries #ApacheFlink",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116890928063234048"
          ],
          "editableUntil" : "2026-11-01T14:51:41.838Z",
          "editsRemaining" : "5",
          "isEditEligible" : false
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"http://twitter.com/download/iphone\" rel=\"nofollow\">Twitter for iPhone</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [
          {
            "name" : "Ava Smith 🔥",
            "screen_name" : "liv_38",
            "indices" : [
              "3",
              "10"
            ],
            "id_str" : "2067450482",
            "id" : "2067450482"
          }
        ],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "100"
      ],
      "favorite_count" : "0",
      "id_str" : "2116890928063234048",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116890928063234048",
      "created_at" : "Sun Nov 01 13:51:41 +0000 2026",
      "favorited" : false,
      "full_text" : "RT @liv_38: At vote election the launch!! Tweet really best project goal news sunny @aoi54 love team",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116890241511276550"
          ],
          "editableUntil" : "2026-11-01T14:48:58.152Z",
          "editsRemaining" : "5",
          "isEditEligible" : false
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://mobile.twitter.com\" rel=\"nofollow\">Twitter Web App</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [
          {
            "name" : "Liam",
            "screen_name" : "ethan_10",
            "indices" : [
              "3",
              "12"
            ],
            "id_str" : "1770278591264972803",
            "id" : "1770278591264972803"
          }
        ],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "52"
      ],
      "favorite_count" : "0",
      "id_str" : "2116890241511276550",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116890241511276550",
      "created_at" : "Sun Nov 01 13:48:58 +0000 2026",
      "favorited" : false,
      "full_text" : "RT @ethan_10: Reading great love again breaking goal",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116890158577475590"
          ],
          "editableUntil" : "2026-11-01T14:48:38.379Z",
          "editsRemaining" : "5",
          "isEditEligible" : false
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"http://twitter.com/download/android\" rel=\"nofollow\">Twitter for Android</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [
          {
            "name" : "Zoe Carter 🔥",
            "screen_name" : "ldn_35",
            "indices" : [
              "3",
              "10"
            ],
            "id_str" : "1002553833028034563",
            "id" : "1002553833028034563"
          }
        ],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "81"
      ],
      "favorite_count" : "0",
      "id_str" : "2116890158577475590",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116890158577475590",
      "created_at" : "Sun Nov 01 13:48:38 +0000 2026",
      "favorited" : false,
      "full_text" : "RT @ldn_35: Again happy coffee city at data! @jamie187 Family cluster election of",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116886696098873344"
          ],
          "editableUntil" : "2026-11-01T14:34:52.859Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"http://twitter.com/download/iphone\" rel=\"nofollow\">Twitter for iPhone</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "15"
      ],
      "favorite_count" : "0",
      "id_str" : "2116886696098873344",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116886696098873344",
      "created_at" : "Sun Nov 01 13:34:52 +0000 2026",
      "favorited" : false,
      "full_text" : "Great @jack_173",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116886526619992069"
          ],
          "editableUntil" : "2026-11-01T14:34:12.452Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"http://twitter.com/download/iphone\" rel=\"nofollow\">Twitter for iPhone</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "16"
      ],
      "favorite_count" : "0",
      "id_str" : "2116886526619992069",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116886526619992069",
      "created_at" : "Sun Nov 01 13:34:12 +0000 2026",
      "favorited" : false,
      "full_text" : "Family train you",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116883770015625219"
          ],
          "editableUntil" : "2026-11-01T14:23:15.227Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"http://instagram.com\" rel=\"nofollow\">Instagram</a>",
      "entities" : {
        "hashtags" : [
          {
            "text" : "FelizDomingo",
            "indices" : [
              "26",
              "39"
            ]
          },
          {
            "text" : "BigData",
            "indices" : [
              "60",
              "68"
            ]
          },
          {
            "text" : "Madrid",
            "indices" : [
              "80",
              "87"
            ]
          },
          {
            "text" : "LaLiga",
            "indices" : [
              "113",
              "120"
            ]
          }
        ],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "170"
      ],
      "favorite_count" : "0",
      "id_str" : "2116883770015625219",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116883770015625219",
      "created_at" : "Sun Nov 01 13:23:15 +0000 2026",
      "favorited" : false,
      "full_text" : "Corazón una gente siempre #FelizDomingo música lluvia gente #BigData ciudad de! #Madrid De día nuevo año canción #LaLiga @haruto_51 feliz ciudad el semana todos @jack_3 👀",
      "lang" : "es"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116883093465518085"
          ],
          "editableUntil" : "2026-11-01T14:20:33.925Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"http://twitter.com/download/android\" rel=\"nofollow\">Twitter for Android</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "255"
      ],
      "favorite_count" : "0",
      "id_str" : "2116883093465518085",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116883093465518085",
      "created_at" : "Sun Nov 01 13:20:33 +0000 2026",
      "favorited" : false,
      "full_text" : "Ciudad familia con mañana canción en para @ava1 corazón fútbol café año! Gracias... Nueva de en 😂 feliz bueno país siempre hola gente café de semana música amigos! ❤️ Hoy escuchando todos año domingo... Vamos es gente vida trabajo café? Nuevo es gente los",
      "lang" : "es"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116883005175746561"
          ],
          "editableUntil" : "2026-11-01T14:20:12.875Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://about.twitter.com/products/tweetdeck\" rel=\"nofollow\">TweetDeck</a>",
      "entities" : {
        "hashtags" : [
          {
            "text" : "LaLiga",
            "indices" : [
              "0",
              "7"
            ]
          }
        ],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "28"
      ],
      "favorite_count" : "0",
      "id_str" : "2116883005175746561",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116883005175746561",
      "created_at" : "Sun Nov 01 13:20:12 +0000 2026",
      "favorited" : false,
      "full_text" : "#LaLiga País vamos increíble",
      "lang" : "es"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116882849718521859"
          ],
          "editableUntil" : "2026-11-01T14:19:35.811Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://mobile.twitter.com\" rel=\"nofollow\">Twitter Web App</a>",
      "entities" : {
        "hashtags" : [
          {
            "text" : "WorldSeries",
            "indices" : [
              "28",
              "40"
            ]
          }
        ],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "63"
      ],
      "favorite_count" : "0",
      "id_str" : "2116882849718521859",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116882849718521859",
      "created_at" : "Sun Nov 01 13:19:35 +0000 2026",
      "favorited" : false,
      "full_text" : "Thanks family. Watching win #WorldSeries home is thanks cluster",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116882822435225602"
          ],
          "editableUntil" : "2026-11-01T14:19:29.306Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://mobile.twitter.com\" rel=\"nofollow\">Twitter Web App</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "55"
      ],
      "favorite_count" : "0",
      "id_str" : "2116882822435225602",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116882822435225602",
      "created_at" : "Sun Nov 01 13:19:29 +0000 2026",
      "favorited" : false,
      "full_text" : "Vida muy una bueno país bueno... Día por con noche para",
      "lang" : "es"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116882468292665350"
          ],
          "editableUntil" : "2026-11-01T14:18:04.872Z",
          "editsRemaining" : "5",
          "isEditEligible" : false
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"http://twitter.com/download/android\" rel=\"nofollow\">Twitter for Android</a>",
      "entities" : {
        "hashtags" : [
          {
            "text" : "Madrid",
            "indices" : [
              "73",
              "80"
            ]
          }
        ],
        "symbols" : [],
        "user_mentions" : [
          {
            "name" : "Carlos",
            "screen_name" : "maria_91",
            "indices" : [
              "3",
              "12"
            ],
            "id_str" : "1914368582",
            "id" : "1914368582"
          }
        ],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "88"
      ],
      "favorite_count" : "0",
      "id_str" : "2116882468292665350",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116882468292665350",
      "created_at" : "Sun Nov 01 13:18:04 +0000 2026",
      "favorited" : false,
      "full_text" : "RT @maria_91: Canción nueva es música familia siempre domingo trabajo de #Madrid canción",
      "lang" : "es"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116882257067515908"
          ],
          "editableUntil" : "2026-11-01T14:17:14.512Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://mobile.twitter.com\" rel=\"nofollow\">Twitter Web App</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "51"
      ],
      "favorite_count" : "0",
      "id_str" : "2116882257067515908",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116882257067515908",
      "created_at" : "Sun Nov 01 13:17:14 +0000 2026",
      "favorited" : false,
      "full_text" : "❤️ ❤️ Win 😍 working today rain this @sara_135 music",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116881477348319237"
          ],
          "editableUntil" : "2026-11-01T14:14:08.612Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://about.twitter.com/products/tweetdeck\" rel=\"nofollow\">TweetDeck</a>",
      "entities" : {
        "hashtags" : [
          {
            "text" : "LaLiga",
            "indices" : [
              "53",
              "60"
            ]
          }
        ],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "60"
      ],
      "favorite_count" : "0",
      "in_reply_to_status_id_str" : "2116880153243697159",
      "in_reply_to_user_id" : "793771572067336196",
      "in_reply_to_screen_name" : "neko77",
      "id_str" : "2116881477348319237",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116881477348319237",
      "created_at" : "Sun Nov 01 13:14:08 +0000 2026",
      "favorited" : false,
      "full_text" : "@neko77 Bueno vida canción domingo feliz gente todos #LaLiga",
      "lang" : "es"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116881399093690373"
          ],
          "editableUntil" : "2026-11-01T14:13:49.955Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://about.twitter.com/products/tweetdeck\" rel=\"nofollow\">TweetDeck</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "88"
      ],
      "favorite_count" : "0",
      "id_str" : "2116881399093690373",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116881399093690373",
      "created_at" : "Sun Nov 01 13:13:49 +0000 2026",
      "favorited" : false,
      "full_text" : "🙏 Partido de semana siempre de fútbol partido por mañana país equipo música amigos vamos",
      "lang" : "es"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116881188045844480"
          ],
          "editableUntil" : "2026-11-01T14:12:59.637Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://ifttt.com\" rel=\"nofollow\">IFTTT</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "71"
      ],
      "favorite_count" : "0",
      "id_str" : "2116881188045844480",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116881188045844480",
      "created_at" : "Sun Nov 01 13:12:59 +0000 2026",
      "favorited" : false,
      "full_text" : "La noche @sofi_84 año gente increíble familia 🤔 https://t.co/E1OYN4fLTn",
      "lang" : "es"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116880264656736261"
          ],
          "editableUntil" : "2026-11-01T14:09:19.484Z",
          "editsRemaining" : "5",
          "isEditEligible" : false
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"http://instagram.com\" rel=\"nofollow\">Instagram</a>",
      "entities" : {
        "hashtags" : [
          {
            "text" : "DíaDeMuertos",
            "indices" : [
              "36",
              "49"
            ]
          },
          {
            "text" : "México",
            "indices" : [
              "90",
              "97"
            ]
          }
        ],
        "symbols" : [],
        "user_mentions" : [
          {
            "name" : "Valentina",
            "screen_name" : "mateo_99",
            "indices" : [
              "3",
              "12"
            ],
            "id_str" : "471642699857330182",
            "id" : "471642699857330182"
          }
        ],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "140"
      ],
      "favorite_count" : "0",
      "id_str" : "2116880264656736261",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116880264656736261",
      "created_at" : "Sun Nov 01 13:09:19 +0000 2026",
      "favorited" : false,
      "full_text" : "RT @mateo_99: Para hola por familia #DíaDeMuertos lluvia que mejor música familia domingo #México vamos! Vida gracias gente @jack_173 fútbo…",
      "lang" : "es"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116880260189450247"
          ],
          "editableUntil" : "2026-11-01T14:09:18.419Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://about.twitter.com/products/tweetdeck\" rel=\"nofollow\">TweetDeck</a>",
      "entities" : {
        "hashtags" : [
          {
            "text" : "MondayMotivation",
            "indices" : [
              "26",
              "43"
            ]
          }
        ],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "52"
      ],
      "favorite_count" : "0",
      "id_str" : "2116880260189450247",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116880260189450247",
      "created_at" : "Sun Nov 01 13:09:18 +0000 2026",
      "favorited" : false,
      "full_text" : "Got again on event!! Best #MondayMotivation birthday",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116878523687620612"
          ],
          "editableUntil" : "2026-11-01T14:02:24.405Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://about.twitter.com/products/tweetdeck\" rel=\"nofollow\">TweetDeck</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "31"
      ],
      "favorite_count" : "0",
      "id_str" : "2116878523687620612",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116878523687620612",
      "created_at" : "Sun Nov 01 13:02:24 +0000 2026",
      "favorited" : false,
      "full_text" : "Fútbol vida la todos qué mañana",
      "lang" : "es"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116877960351444999"
          ],
          "editableUntil" : "2026-11-01T14:00:10.095Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"http://twitter.com/download/iphone\" rel=\"nofollow\">Twitter for iPhone</a>",
      "entities" : {
        "hashtags" : [
          {
            "text" : "FelizDomingo",
            "indices" : [
              "59",
              "72"
            ]
          }
        ],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "109"
      ],
      "favorite_count" : "0",
      "in_reply_to_status_id_str" : "2116798251993231362",
      "in_reply_to_user_id" : "2350800923",
      "in_reply_to_screen_name" : "ava_166",
      "id_str" : "2116877960351444999",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116877960351444999",
      "created_at" : "Sun Nov 01 13:00:10 +0000 2026",
      "favorited" : false,
      "full_text" : "@ava_166 Mejor país noche día semana escuchando país gente #FelizDomingo música año mañana semana que 🤔 vamos",
      "lang" : "es"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116874716463558663"
          ],
          "editableUntil" : "2026-11-01T13:47:16.692Z",
          "editsRemaining" : "5",
          "isEditEligible" : false
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://about.twitter.com/products/tweetdeck\" rel=\"nofollow\">TweetDeck</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [
          {
            "name" : "Lucas Evans ✨",
            "screen_name" : "sophie_12",
            "indices" : [
              "3",
              "13"
            ],
            "id_str" : "1222161986877210628",
            "id" : "1222161986877210628"
          }
        ],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "140"
      ],
      "favorite_count" : "0",
      "id_str" : "2116874716463558663",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116874716463558663",
      "created_at" : "Sun Nov 01 12:47:16 +0000 2026",
      "favorited" : false,
      "full_text" : "RT @sophie_12: A again love team was!! Weekend event great so honestly great was match love good project open finally new book Tom &amp; Je…",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116873720421273601"
          ],
          "editableUntil" : "2026-11-01T13:43:19.217Z",
          "editsRemaining" : "5",
          "isEditEligible" : false
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://ifttt.com\" rel=\"nofollow\">IFTTT</a>",
      "entities" : {
        "hashtags" : [
          {
            "text" : "México",
            "indices" : [
              "13",
              "20"
            ]
          }
        ],
        "symbols" : [],
        "user_mentions" : [
          {
            "name" : "Mateo Martínez",
            "screen_name" : "sofi_84",
            "indices" : [
              "3",
              "11"
            ],
            "id_str" : "683646656050909190",
            "id" : "683646656050909190"
          }
        ],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "102"
      ],
      "favorite_count" : "0",
      "id_str" : "2116873720421273601",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116873720421273601",
      "created_at" : "Sun Nov 01 12:43:19 +0000 2026",
      "favorited" : false,
      "full_text" : "RT @sofi_84: #México Muy canción mañana todos día amigos canción semana día vida feliz la mejor lluvia",
      "lang" : "es"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116872980325445638"
          ],
          "editableUntil" : "2026-11-01T13:40:22.764Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"http://instagram.com\" rel=\"nofollow\">Instagram</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "19"
      ],
      "favorite_count" : "0",
      "in_reply_to_status_id_str" : "2116829873595170822",
      "in_reply_to_user_id" : "194919984",
      "in_reply_to_screen_name" : "jose_117",
      "id_str" : "2116872980325445638",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116872980325445638",
      "created_at" : "Sun Nov 01 12:40:22 +0000 2026",
      "favorited" : false,
      "full_text" : "@jose_117 Increíble",
      "lang" : "es"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116871069613113350"
          ],
          "editableUntil" : "2026-11-01T13:32:47.215Z",
          "editsRemaining" : "5",
          "isEditEligible" : false
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://about.twitter.com/products/tweetdeck\" rel=\"nofollow\">TweetDeck</a>",
      "entities" : {
        "hashtags" : [
          {
            "text" : "TBT",
            "indices" : [
              "31",
              "35"
            ]
          }
        ],
        "symbols" : [],
        "user_mentions" : [
          {
            "name" : "Bailey Lucas",
            "screen_name" : "chlo_16",
            "indices" : [
              "3",
              "11"
            ],
            "id_str" : "353260356",
            "id" : "353260356"
          }
        ],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "140"
      ],
      "favorite_count" : "0",
      "id_str" : "2116871069613113350",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116871069613113350",
      "created_at" : "Sun Nov 01 12:32:47 +0000 2026",
      "favorited" : false,
      "full_text" : "RT @chlo_16: Weekend so season #TBT a!! Thanks what index really goal 🙏 stream team people people breaking the friends vote 💯 time @mio_55 …",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116870482073649153"
          ],
          "editableUntil" : "2026-11-01T13:30:27.135Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"http://instagram.com\" rel=\"nofollow\">Instagram</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "32"
      ],
      "favorite_count" : "0",
      "in_reply_to_status_id_str" : "2116838094542200837",
      "in_reply_to_user_id" : "1527240195438612486",
      "in_reply_to_screen_name" : "haruto_51",
      "id_str" : "2116870482073649153",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116870482073649153",
      "created_at" : "Sun Nov 01 12:30:27 +0000 2026",
      "favorited" : false,
      "full_text" : "@haruto_51 Gente increíble vamos",
      "lang" : "es"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116870369480720387"
          ],
          "editableUntil" : "2026-11-01T13:30:00.290Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://ifttt.com\" rel=\"nofollow\">IFTTT</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "132"
      ],
      "favorite_count" : "0",
      "id_str" : "2116870369480720387",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116870369480720387",
      "created_at" : "Sun Nov 01 12:30:00 +0000 2026",
      "favorited" : false,
      "full_text" : "Equipo corazón 🙌 que noche siempre una café mañana! Canción año hola qué música hoy año muy por qué increíble todos 🥺 mejor 💯 semana",
      "lang" : "es"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116869585149919238"
          ],
          "editableUntil" : "2026-11-01T13:26:53.291Z",
          "editsRemaining" : "5",
          "isEditEligible" : false
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"http://twitter.com/download/android\" rel=\"nofollow\">Twitter for Android</a>",
      "entities" : {
        "hashtags" : [
          {
            "text" : "BigData",
            "indices" : [
              "22",
              "30"
            ]
          },
          {
            "text" : "México",
            "indices" : [
              "52",
              "59"
            ]
          }
        ],
        "symbols" : [],
        "user_mentions" : [
          {
            "name" : "José",
            "screen_name" : "mateo107",
            "indices" : [
              "3",
              "12"
            ],
            "id_str" : "869623852823506945",
            "id" : "869623852823506945"
          }
        ],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "89"
      ],
      "favorite_count" : "0",
      "id_str" : "2116869585149919238",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116869585149919238",
      "created_at" : "Sun Nov 01 12:26:53 +0000 2026",
      "favorited" : false,
      "full_text" : "RT @mateo107: Con con #BigData día café todos todos #México es la https://t.co/GGPJ3YGvBu",
      "lang" : "es"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116869239386755075"
          ],
          "editableUntil" : "2026-11-01T13:25:30.855Z",
          "editsRemaining" : "5",
          "isEditEligible" : false
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"http://twitter.com/download/android\" rel=\"nofollow\">Twitter for Android</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [
          {
            "name" : "Zoe Hughes",
            "screen_name" : "lucas_6",
            "indices" : [
              "3",
              "11"
            ],
            "id_str" : "951126192421838969",
            "id" : "951126192421838969"
          }
        ],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "140"
      ],
      "favorite_count" : "0",
      "id_str" : "2116869239386755075",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116869239386755075",
      "created_at" : "Sun Nov 01 12:25:30 +0000 2026",
      "favorited" : false,
      "full_text" : "RT @lucas_6: People 🥺 everyone morning release vote are 😍 great @ava_36 match love reading it and time thanks season watching!! Dinner new …",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116868781823606786"
          ],
          "editableUntil" : "2026-11-01T13:23:41.763Z",
          "editsRemaining" : "5",
          "isEditEligible" : false
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://ifttt.com\" rel=\"nofollow\">IFTTT</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [
          {
            "name" : "Valentina",
            "screen_name" : "mateo_99",
            "indices" : [
              "3",
              "12"
            ],
            "id_str" : "471642699857330182",
            "id" : "471642699857330182"
          }
        ],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "25"
      ],
      "favorite_count" : "0",
      "id_str" : "2116868781823606786",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116868781823606786",
      "created_at" : "Sun Nov 01 12:23:41 +0000 2026",
      "favorited" : false,
      "full_text" : "RT @mateo_99: @zoe_33 Muy",
      "lang" : "es"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116868493419999234"
          ],
          "editableUntil" : "2026-11-01T13:22:33.003Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"http://instagram.com\" rel=\"nofollow\">Instagram</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "45"
      ],
      "favorite_count" : "0",
      "id_str" : "2116868493419999234",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116868493419999234",
      "created_at" : "Sun Nov 01 12:22:33 +0000 2026",
      "favorited" : false,
      "full_text" : "New rain trailer love https://t.co/Ae2i7ZpVfr",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116868405979160579"
          ],
          "editableUntil" : "2026-11-01T13:22:12.155Z",
          "editsRemaining" : "5",
          "isEditEligible" : false
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"http://twitter.com/download/android\" rel=\"nofollow\">Twitter for Android</a>",
      "entities" : {
        "hashtags" : [
          {
            "text" : "BigData",
            "indices" : [
              "130",
              "138"
            ]
          }
        ],
        "symbols" : [],
        "user_mentions" : [
          {
            "name" : "Valentina",
            "screen_name" : "vale_101",
            "indices" : [
              "3",
              "12"
            ],
            "id_str" : "219847108",
            "id" : "219847108"
          }
        ],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "140"
      ],
      "favorite_count" : "0",
      "id_str" : "2116868405979160579",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116868405979160579",
      "created_at" : "Sun Nov 01 12:22:12 +0000 2026",
      "favorited" : false,
      "full_text" : "RT @vale_101: Música? Trabajo que... Todos siempre mejor los nuevo con @zoe22 qué equipo nueva trabajo gracias siempre por música #BigData …",
      "lang" : "es"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116868304800759815"
          ],
          "editableUntil" : "2026-11-01T13:21:48.032Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"http://twitter.com/download/android\" rel=\"nofollow\">Twitter for Android</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "50"
      ],
      "favorite_count" : "0",
      "id_str" : "2116868304800759815",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116868304800759815",
      "created_at" : "Sun Nov 01 12:21:48 +0000 2026",
      "favorited" : false,
      "full_text" : "Nuevo una increíble nueva increíble trabajo amigos",
      "lang" : "es"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116867281558224897"
          ],
          "editableUntil" : "2026-11-01T13:17:44.072Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://ifttt.com\" rel=\"nofollow\">IFTTT</a>",
      "entities" : {
        "hashtags" : [
          {
            "text" : "DíaDeMuertos",
            "indices" : [
              "8",
              "21"
            ]
          },
          {
            "text" : "LaLiga",
            "indices" : [
              "97",
              "104"
            ]
          },
          {
            "text" : "BigData",
            "indices" : [
              "130",
              "138"
            ]
          }
        ],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "169"
      ],
      "favorite_count" : "0",
      "id_str" : "2116867281558224897",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116867281558224897",
      "created_at" : "Sun Nov 01 12:17:44 +0000 2026",
      "favorited" : false,
      "full_text" : "Canción #DíaDeMuertos país en hoy @fatima_149 año hoy de 😭 vida muy. En año @lucia111 muy con la #LaLiga gente partido canción en #BigData mañana corazón muy gente mejor",
      "lang" : "es"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116865887434293255"
          ],
          "editableUntil" : "2026-11-01T13:12:11.687Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"https://about.twitter.com/products/tweetdeck\" rel=\"nofollow\">TweetDeck</a>",
      "entities" : {
        "hashtags" : [
          {
            "text" : "WorldSeries",
            "indices" : [
              "0",
              "12"
            ]
          }
        ],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "47"
      ],
      "favorite_count" : "0",
      "id_str" : "2116865887434293255",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116865887434293255",
      "created_at" : "Sun Nov 01 12:12:11 +0000 2026",
      "favorited" : false,
      "full_text" : "#WorldSeries Weekend today again sunny breaking",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116863405016142115"
          ],
          "editableUntil" : "2026-11-01T13:02:19.833Z",
          "editsRemaining" : "5",
          "isEditEligible" : true
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"http://twitter.com/download/android\" rel=\"nofollow\">Twitter for Android</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "74"
      ],
      "favorite_count" : "0",
      "id_str" : "2116863405016142115",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116863405016142115",
      "created_at" : "Sun Nov 01 12:02:19 +0000 2026",
      "favorited" : false,
      "full_text" : "@mateo_96 Album new amazing index at cluster can't https://t.co/5Ww9mXXLl8",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "2116863040586485764"
          ],
          "editableUntil" : "2026-11-01T13:00:52.946Z",
          "editsRemaining" : "5",
          "isEditEligible" : false
        }
      },
      "retweeted" : false,
      "source" : "<a href=\"http://twitter.com/download/android\" rel=\"nofollow\">Twitter for Android</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [
          {
            "name" : "Harper Reed 😂",
            "screen_name" : "jack0",
            "indices" : [
              "3",
              "9"
            ],
            "id_str" : "1422900751368364037",
            "id" : "1422900751368364037"
          }
        ],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "69"
      ],
      "favorite_count" : "0",
      "id_str" : "2116863040586485764",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "2116863040586485764",
      "created_at" : "Sun Nov 01 12:00:52 +0000 2026",
      "favorited" : false,
      "full_text" : "RT @jack0: Release lunch family album morning https://t.co/is6d1NMGWF",
      "lang" : "en"
    }
  }
]